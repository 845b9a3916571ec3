#pragma once
// The trustworthiness ranks over k-means parts: with the cells laid out in parts
// (core/knn/knn_part_layout.h), each warp of the rank kernel (split_ranks.h) scans only the parts
// that some target of its 16 cells cuts through. A part that lies wholly nearer than a target
// adds all its cells to that target's count at once; one wholly farther adds none. Whether a
// part lies wholly on one side comes from the distance of the cell to the part's centre, in
// double, and the part's radius, which bounds the exact distance of any of its cells (the
// layout widens it for the rows' rounding): the counts stay the CPU's.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/knn/knn_part_layout.h"
#include "cuda/device_buffer.h"
#include "cuda/split_knn.h"

namespace sepal::cuda {

struct RankSlots;

/// Words of a warp's mask of the parts it scans (bit p of word p / 32: part p).
constexpr int kRankPartWords = kMaxKnnParts / 32;

/// Cells of a warp of the rank kernel (one m16 tile): what a decision is made for.
constexpr int kRankWarpCells = 16;

/// Calls f(KS, T), as std::integral_constants, for the shapes the rank kernels are built for:
/// rows of 16 KS columns (KS 1 to 4) and T target places (8, 10 or 16; k = 10 is the scores'
/// default). Throws std::logic_error, naming `what`, for any other shape.
template <class F>
void withRankShape(int stride, int width, const char* what, F f) {
    const auto places = [&](auto ks) {
        if (width == 8) return f(ks, std::integral_constant<int, 8>{});
        if (width == 10) return f(ks, std::integral_constant<int, 10>{});
        if (width == 16) return f(ks, std::integral_constant<int, 16>{});
        throw std::logic_error(std::string(what) + ": " + std::to_string(width) + " target places");
    };
    if (stride == 16) return places(std::integral_constant<int, 1>{});
    if (stride == 32) return places(std::integral_constant<int, 2>{});
    if (stride == 48) return places(std::integral_constant<int, 3>{});
    if (stride == 64) return places(std::integral_constant<int, 4>{});
    throw std::logic_error(std::string(what) + ": rows of " + std::to_string(stride) + " columns");
}

/// The parts as the rank kernel reads them (parts 0: every warp scans every tile).
struct RankPartsDevice {
    const int* partTiles = nullptr;   ///< parts + 1: each part's first reference tile, then the end
    const uint32_t* scan = nullptr;   ///< per warp, kRankPartWords words: the parts it scans
    const uint32_t* order = nullptr;  ///< positions: the cell at each (its row of exact keys)
    int parts = 0;                    ///< how many parts
};

/// A layout's parts on the device, and the kernel that decides, for a launch's slots, which
/// parts each warp scans and what the others add to its counts.
class DeviceRankParts {
  public:
    /// Uploads the layout's tiles, balls, cell counts and order.
    explicit DeviceRankParts(const KnnPartLayout& layout);
    /// For `slots` (cells named by their positions in the layout) of `width` targets, taken by
    /// the rank kernel's warps of 16 slots each: sets each warp's parts to scan, and adds to
    /// `counts` the cells of every part a warp does not scan that lie nearer than each target.
    /// `split`: the layout's split rows.
    RankPartsDevice decide(const SplitKnnDevice& split, const RankSlots& slots, int width,
                           uint32_t* counts);
    /// For a launch that scans every tile of the layout (no decision): only the order.
    RankPartsDevice everyTile() const { return {nullptr, nullptr, m_order.get(), 0}; }
    /// The cell pairs the scanned parts hold, summed over the decisions so far (padding counted).
    uint64_t scannedPairs() const;

  private:
    int m_parts;
    double m_widen;
    DeviceBuffer<int> m_partTiles;
    DeviceBuffer<float> m_centre, m_radius;
    DeviceBuffer<uint32_t> m_cellsInPart, m_order, m_scan;
    DeviceBuffer<unsigned long long> m_scannedTiles;
};

}  // namespace sepal::cuda
