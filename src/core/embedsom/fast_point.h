#pragma once
// Steps 2-4 of embedsom.md for one point in the O(k^2) form, from its sorted neighbours.

#include <cstdint>
#include <vector>

#include "core/embedsom/pair_constants.h"
#include "core/embedsom/scores.h"

namespace sepal {

/// Scratch space for one thread (sized for topnn neighbours).
struct FastPointScratch {
    std::vector<float> score, lx, ly;  ///< per neighbour: score and 2D position
    /// Sizes the buffers for topnn neighbours.
    void reserve(int topnn) { score.resize(topnn), lx.resize(topnn), ly.resize(topnn); }
};

/// a, idx: topnn neighbours, ascending; low: g x 2. Writes y (2 values); returns false when
/// the point was degenerate and placed by the fallback.
bool projectFastPoint(const float* a, const uint32_t* idx, const ScoreSetup& setup,
                      const PairConstants& pairs, const float* low, FastPointScratch& scratch,
                      float* y);

}  // namespace sepal
