// The trustworthiness ranks' parts (rank_parts.h): which parts each warp of the rank kernel
// scans, and the counts of the parts it does not.
//
// Why the counts stay exact: a part's radius R bounds |y - c| for the exact values y of every
// cell of the part, and the layout's widening w is at least the distance from a cell's row a to
// its exact values x (knn_part_layout.cpp). With D = |a - c|, every cell y of the part has
// D - R - w <= |x - y| <= D + R + w. D is summed in double from float rows (a relative error far
// below 1e-12), and a target's key is the exact squared distance to within a relative 1e-15:
// a part whose upper end, squared and widened by 1e-12, lies below a target's key is nearer
// than it cell by cell (ties cannot occur), and one whose lower end lies above it is farther.

#include "cuda/rank_parts.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/cuda_error.h"
#include "cuda/rank_slots.cuh"
#include "cuda/split_mma.cuh"

namespace sepal::cuda {
namespace {

static_assert(kSplitRefTile == kKnnPartTile, "a part starts on a whole reference tile");

constexpr int kDecideThreads = 128;

/// What the decision kernel reads and writes.
struct DecideArgs {
    const float* rows;  // the layout's split rows, stride STRIDE
    RankSlots slots;
    const int* partTiles;
    const float* centre;  // parts x STRIDE
    const float* radius;  // parts (negative: no usable row)
    const uint32_t* cellsInPart;
    int parts;
    double widen;
    uint32_t* scan;    // warps x kRankPartWords
    uint32_t* counts;  // slots x T
    unsigned long long* scannedTiles;
};

/// One warp per 16 slots, two lanes per cell (the even lane takes the even parts): for every
/// part and target, wholly nearer, wholly farther, or cut. A part that cuts some target of the
/// warp's cells is scanned by the warp (for all of them); the others add, for each target they
/// lie wholly nearer than, their cells to its count.
template <int STRIDE, int T>
__global__ void __launch_bounds__(kDecideThreads) decideRankPartsKernel(const DecideArgs a) {
    const int warpId = int((size_t(blockIdx.x) * kDecideThreads + threadIdx.x) >> 5);
    const int lane = threadIdx.x & 31, half = lane & 1;
    const int first = warpId * kRankWarpCells;
    if (first >= a.slots.count) return;  // the whole warp
    const int s = first + (lane >> 1);
    const bool live = s < a.slots.count;
    const uint32_t pos = live ? a.slots.cells[s] : 0;
    float x[STRIDE];
    const float4* row = reinterpret_cast<const float4*>(a.rows + size_t(pos) * STRIDE);
#pragma unroll
    for (int c = 0; c < STRIDE / 4; ++c) {
        const float4 v = row[c];
        x[4 * c] = v.x, x[4 * c + 1] = v.y, x[4 * c + 2] = v.z, x[4 * c + 3] = v.w;
    }
    // Unused places and absent cells: a key of -1, which every part lies farther than.
    double key[T];
#pragma unroll
    for (int t = 0; t < T; ++t) {
        const size_t at = size_t(s) * T + t;
        key[t] = live && a.slots.below[at] != -INFINITY ? a.slots.key[at] : -1.0;
    }
    // The cell's own part (it is not its own nearer cell).
    const int tile = int(pos / kKnnPartTile);
    int own = 0;  // the first part that ends after the cell's tile
    for (int hi = a.parts; own < hi;) {
        const int mid = (own + hi) / 2;
        if (a.partTiles[mid + 1] <= tile)
            own = mid + 1;
        else
            hi = mid;
    }
    uint32_t whole[T];
#pragma unroll
    for (int t = 0; t < T; ++t) whole[t] = 0;
    uint32_t word = 0;
    unsigned long long tiles = 0;
    for (int p0 = 0; p0 < a.parts; p0 += 2) {
        const int p = p0 + half;
        bool cut = false;
        uint32_t nearerThan = 0, cells = 0;  // the targets the part lies wholly nearer than
        if (live && p < a.parts && a.radius[p] >= 0.0f) {
            const float4* centre = reinterpret_cast<const float4*>(a.centre + size_t(p) * STRIDE);
            double d2 = 0.0;
#pragma unroll
            for (int c = 0; c < STRIDE / 4; ++c) {
                const float4 v = __ldg(centre + c);
                const double e0 = double(x[4 * c]) - v.x, e1 = double(x[4 * c + 1]) - v.y;
                const double e2 = double(x[4 * c + 2]) - v.z, e3 = double(x[4 * c + 3]) - v.w;
                d2 = fma(e0, e0, d2), d2 = fma(e1, e1, d2), d2 = fma(e2, e2, d2);
                d2 = fma(e3, e3, d2);
            }
            const double dist = sqrt(d2), reach = double(a.radius[p]) + a.widen;
            const double upper = dist * (1 + 1e-12) + reach, lower = dist * (1 - 1e-12) - reach;
            const double nearer = upper * upper * (1 + 1e-12);
            // Where the ball holds the cell, no key of a used place (>= 0) lies below it all.
            const double farther = lower > 0 ? lower * lower * (1 - 1e-12) : -0.5;
            cells = a.cellsInPart[p] - (p == own ? 1u : 0u);
#pragma unroll
            for (int t = 0; t < T; ++t) {
                if (nearer < key[t])
                    nearerThan |= 1u << t;
                else if (!(farther > key[t]))
                    cut = true;
            }
        }
        const uint32_t cuts = __ballot_sync(0xffffffffu, cut);
        const bool even = (cuts & 0x55555555u) != 0, odd = (cuts & 0xaaaaaaaau) != 0;
        // A part the warp scans is counted there, product by product, for every target of its
        // cells: only the parts it leaves out are counted whole.
        if (!(half ? odd : even)) {
#pragma unroll
            for (int t = 0; t < T; ++t) whole[t] += (nearerThan >> t) & 1u ? cells : 0u;
        }
        word |= uint32_t(even) << (p0 & 31) | uint32_t(odd) << ((p0 + 1) & 31);
        if (even) tiles += a.partTiles[p0 + 1] - a.partTiles[p0];
        if (odd) tiles += a.partTiles[p0 + 2] - a.partTiles[p0 + 1];
        if ((p0 & 31) == 30 || p0 + 2 >= a.parts) {
            if (lane == 0) a.scan[size_t(warpId) * kRankPartWords + (p0 >> 5)] = word;
            word = 0;
        }
    }
    // The two lanes' parts together; nothing else writes these counts before the rank kernel.
#pragma unroll
    for (int t = 0; t < T; ++t) {
        whole[t] += __shfl_xor_sync(0xffffffffu, whole[t], 1);
        if (half == 0 && live && whole[t] != 0) a.counts[size_t(s) * T + t] += whole[t];
    }
    if (lane == 0 && tiles != 0) atomicAdd(a.scannedTiles, tiles);
}

/// The decision kernel for the rows' stride and the target places.
template <int STRIDE, int T>
void launchDecide(const DecideArgs& a) {
    const size_t warps = (size_t(a.slots.count) + kRankWarpCells - 1) / kRankWarpCells;
    const unsigned blocks = unsigned((warps * 32 + kDecideThreads - 1) / kDecideThreads);
    decideRankPartsKernel<STRIDE, T><<<blocks, kDecideThreads>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("decideRankPartsKernel");
}

}  // namespace

DeviceRankParts::DeviceRankParts(const KnnPartLayout& layout)
    : m_parts(layout.parts()), m_widen(layout.widen) {
    uploadVector(m_partTiles, layout.partTiles);
    uploadVector(m_centre, layout.partCentre);
    uploadVector(m_radius, layout.partRadius);
    uploadVector(m_cellsInPart, layout.partCells);
    uploadVector(m_order, layout.order);
    m_scannedTiles.reserve(1);
    SEPAL_CUDA_CHECK(cudaMemset(m_scannedTiles.get(), 0, sizeof(unsigned long long)));
}

RankPartsDevice DeviceRankParts::decide(const SplitKnnDevice& split, const RankSlots& slots,
                                        int width, uint32_t* counts) {
    const size_t warps = (size_t(slots.count) + kRankWarpCells - 1) / kRankWarpCells;
    m_scan.reserve(std::max<size_t>(warps, 1) * kRankPartWords);
    const DecideArgs a{
        split.rows,          slots,   m_partTiles.get(), m_centre.get(), m_radius.get(),
        m_cellsInPart.get(), m_parts, m_widen,           m_scan.get(),   counts,
        m_scannedTiles.get()};
    withRankShape(split.stride, width, "rank parts", [&](auto ks, auto places) {
        if (slots.count > 0) launchDecide<16 * decltype(ks)::value, decltype(places)::value>(a);
    });
    return {m_partTiles.get(), m_scan.get(), m_order.get(), m_parts};
}

uint64_t DeviceRankParts::scannedPairs() const {
    unsigned long long tiles = 0;
    SEPAL_CUDA_CHECK(
        cudaMemcpy(&tiles, m_scannedTiles.get(), sizeof(tiles), cudaMemcpyDeviceToHost));
    return uint64_t(tiles) * kKnnPartTile * kRankWarpCells;
}

}  // namespace sepal::cuda
