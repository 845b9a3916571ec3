#pragma once
// Steps 2-4 of embedsom.md for one point in the O(k^2) form, from its sorted neighbours.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/embedsom/pair_constants.h"
#include "core/embedsom/scores.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// Scratch space for one thread (sized for topnn neighbours).
struct FastPointScratch {
    std::vector<float> score, lx, ly, a;  ///< per neighbour: score, 2D position, distance
    std::vector<uint32_t> idx;            ///< per neighbour: its slot in the pair table
    /// Sizes the buffers for topnn neighbours, padded to a multiple of 8 with zero scores (and
    /// to at least 32, the AVX-512 pair loop's two registers of each).
    void reserve(int topnn) {
        const size_t padded = std::max<size_t>((static_cast<size_t>(topnn) + 7) / 8 * 8 + 8, 32);
        for (auto* v : {&score, &lx, &ly, &a}) v->assign(padded, 0.0f);
        idx.assign(padded, 0);
    }
};

/// x: the point; a, idx: its topnn neighbours, ascending. Writes y (2 values); returns false
/// when the point was degenerate and placed by the fallback.
bool projectFastPoint(const float* x, const LandmarkModel& model, const float* a,
                      const uint32_t* idx, const ScoreSetup& setup, const PairConstants& pairs,
                      float adjust, FastPointScratch& scratch, float* y);

}  // namespace sepal
