#pragma once
// Trustworthiness ranks from tensor cores: for each cell and each of its targets (its picture
// neighbours), how many cells lie nearer in data space, counted
// over the split FP16 products of the k-NN graph's candidates (split_knn.h). A product decides
// "nearer" or "farther" where its error bound allows; the few within a target's interval are
// taken again exactly, so the counts equal the CPU's.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/knn/knn_part_layout.h"
#include "cuda/device_buffer.h"
#include "cuda/split_knn.h"

namespace sepal::cuda {

/// The targets of the cells to rank, in the order the kernel takes them: slot s is cell
/// cells[s] with `width` target places, its targets in ascending order of key after the unused
/// places (whose intervals lie at minus infinity).
struct RankTargets {
    int width = 0;                ///< target places per cell: 8, 10 or 16
    std::vector<uint32_t> cells;  ///< the cell of each slot (its position, with parts)
    std::vector<double> key;      ///< slots x width: the target's exact key (knnKey)
    std::vector<uint32_t> id;     ///< slots x width: the target's index
    std::vector<float> below;     ///< slots x width: products below are surely nearer
    std::vector<float> above;     ///< slots x width: products above are surely farther
};

/// The target places a kernel holds for k targets per cell (0 past 16: none does).
int rankWidthFor(size_t k);

/// Targets for `slots` cells of `width` places each, every place unused.
RankTargets emptyRankTargets(size_t slots, int width);

/// Puts the target (exact key `key`, index `id`) in place `place` of slot s, with its interval
/// in product units from the split input's bounds for cell `cell`.
void addRankTarget(const SplitKnnInput& in, uint32_t cell, double key, uint32_t id, size_t slot,
                   int place, RankTargets& targets);

/// For every slot and place: the cells other than the slot's own nearer than the target in
/// data space (exact key below, or equal with a lower index); 0 for an unused place.
/// `original`: the m x d rows whose exact keys the targets hold, on the device. With `layout`,
/// `split` holds the rows in its order (splitInLayout), the slots name their cells by position
/// in it, and each warp scans only the parts its targets cut through (rank_parts.h).
/// pairsCompared, where given: the share of the slots' pairs with every position that the
/// products compared.
std::vector<uint32_t> splitRankCounts(const SplitKnnCandidates& split, const float* original, int d,
                                      const RankTargets& targets,
                                      const KnnPartLayout* layout = nullptr,
                                      double* pairsCompared = nullptr);

}  // namespace sepal::cuda
