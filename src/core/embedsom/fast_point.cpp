#include "core/embedsom/fast_point.h"

#include <algorithm>
#include <cmath>

#include "core/embedsom/exactness.h"
#include "core/embedsom/fallback.h"
#include "core/embedsom/pair_loops.h"
#include "core/embedsom/reference_solve.h"

namespace sepal {

bool projectFastPoint(const float* x, const LandmarkModel& model, const float* a,
                      const uint32_t* idx, const ScoreSetup& setup, const PairConstants& pairs,
                      float adjust, FastPointScratch& scratch, float* y) {
    const float* low = model.low.data();
    static const PairKernel kernel = fastestPairKernel();
    const int topn = setup.topn;
    float* score = scratch.score.data();
    if (!computeScores(a, setup, score)) {
        neighbourMean(idx, nullptr, topn, low, y);
        return false;
    }
    float* lx = scratch.lx.data();
    float* ly = scratch.ly.data();
    double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < topn; ++i) {
        lx[i] = low[2 * idx[i]];
        ly[i] = low[2 * idx[i] + 1];
        scratch.a[i] = a[i];
        scratch.idx[i] = pairs.slot(idx[i]);  // where the pair loops find its table entries
        // Gravity towards each neighbour keeps the system solvable.
        const float gs = score[i] * 1e-5f;
        acc[0] += gs;
        acc[2] += gs;
        acc[3] += gs * lx[i];
        acc[4] += gs * ly[i];
    }
    // The vector loops read the padding's slots too (with zero scores): landmark 0's, as by index.
    std::fill(scratch.idx.begin() + topn, scratch.idx.end(), pairs.slot(0));
    const bool inexact = pairSums(kernel, a, idx, topn, pairs, scratch, acc);
    const double det = acc[0] * acc[2] - acc[1] * acc[1];
    // An ill-conditioned system turns the differences between these roundings and the
    // reference's into visible moves: such points (and those whose O(1) form of D lost digits)
    // are solved in the reference's arithmetic. A few percent of points at most, with sharp
    // negative smoothing; next to none at the defaults.
    if (inexact || !(det * kReferenceConditioning > acc[0] * acc[2])) {
        if (solveLikeReference(x, model, idx, score, topn, adjust, y, &pairs)) return true;
    } else {
        y[0] = static_cast<float>((acc[3] * acc[2] - acc[4] * acc[1]) / det);
        y[1] = static_cast<float>((acc[0] * acc[4] - acc[1] * acc[3]) / det);
        if (std::isfinite(y[0]) && std::isfinite(y[1])) return true;
    }
    neighbourMean(idx, score, topn, low, y);
    return false;
}

}  // namespace sepal
