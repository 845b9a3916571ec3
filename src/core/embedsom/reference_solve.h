#pragma once
// Steps 3-4 of embedsom.md in the reference's own float arithmetic, for one point whose sorted
// neighbours and scores are known: the reference projector's way, and the fast path's way for
// the points where the fast form's roundings would show.

#include <cstdint>

#include "core/embedsom/exactness.h"
#include "core/embedsom/pair_constants.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// x: the point (model.dim values); idx, score: its topn neighbours in sorted order and their
/// scores. Accumulates the least-squares system in float, term by term as the reference does,
/// with D in the reference's O(d) form, and solves it by Cramer's rule. Writes y and returns
/// false when the solution is not finite (y is then left as computed). pairs: the model's pair
/// table for `adjust`, up to date, whose powers it takes (the same bits), or null.
bool solveLikeReference(const float* x, const LandmarkModel& model, const uint32_t* idx,
                        const float* score, int topn, float adjust, float* y,
                        const PairConstants* pairs = nullptr);

/// solveLikeReference with the O(d) sums of GROUP pairs run side by side: 1 is the reference's
/// own loop, a pair at a time; solveLikeReference runs 4. The bits are the same for any GROUP
/// (tests compare 1 and 4); instantiated for 1 and 4.
template <int GROUP>
bool solveInPairGroups(const float* x, const LandmarkModel& model, const uint32_t* idx,
                       const float* score, int topn, float adjust, float* y,
                       const PairConstants* pairs);

}  // namespace sepal
