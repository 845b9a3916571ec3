#pragma once
// Trustworthiness ranks for rows wider than the split candidates take (more than 64 columns),
// as a matrix product on tensor cores: blocks of 128 cells against tiles of 128 references,
// split FP16 products (hi.hi + hi.lo + lo.hi) over stages of 32 columns through shared memory.
// Each 32 columns' products are summed from zero and added to a running sum, which keeps the
// error bound about 25 times narrower than one sum over 1024 columns (split_knn_input.cpp). A
// product below a target's interval counts as nearer; one inside an interval goes to a list
// whose exact keys a second kernel takes, so the counts equal the CPU's.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/split_knn.h"
#include "cuda/split_ranks.h"

namespace sepal::cuda {

/// Columns each partial sum of the wide kernel covers: prepareSplitKnn's sumColumns for it.
constexpr int kWideSumColumns = 32;

/// Whether the wide rank kernel takes n rows of d columns and `width` target places on the
/// current device (compute capability 8, the shared memory of two stages, and the free memory
/// for the rows' two copies while they are split).
bool wideRanksTake(size_t n, size_t d, int width);

/// What a wideRankCounts call did.
struct WideRankStats {
    double productSeconds = 0;            ///< the products' kernel (its launches, summed)
    double listedSeconds = 0;             ///< the listed products' exact keys (likewise)
    unsigned long long listed = 0;        ///< products inside an interval
    unsigned long long pastCapacity = 0;  ///< of those, the ones the blocks took themselves
};

/// Sizes a caller may set (tests shrink them to reach rare paths); 0 keeps the default.
struct WideRankLimits {
    /// Products inside intervals held for the exact kernel per launch; past it a block takes
    /// their exact keys itself, slowly.
    size_t listCapacity = 0;
    size_t batchSlots = 0;  ///< slots (cells) per launch
};

/// For every slot and place: the cells other than the slot's own nearer than the target in
/// data space (as splitRankCounts). `in`: prepareSplitKnn(..., kWideSumColumns) of the rows;
/// `original`: the m x d rows on the device, whose exact keys the targets hold.
std::vector<uint32_t> wideRankCounts(const SplitKnnInput& in, const float* original, int d,
                                     const RankTargets& targets, const WideRankLimits& limits = {},
                                     WideRankStats* stats = nullptr);

}  // namespace sepal::cuda
