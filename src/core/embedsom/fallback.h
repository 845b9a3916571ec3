#pragma once
// Positions for the points that the least-squares step cannot place (embedsom.md edge cases).

#include <cstddef>
#include <cstdint>

#include "core/embedsom/scores.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// y (2 values) = mean of the neighbours' 2D positions weighted by `weight` (topn values), or
/// with equal weights when `weight` is null or sums to zero.
void neighbourMean(const uint32_t* idx, const float* weight, int topn, const float* low, float* y);

/// Places a point with NaN or infinite coordinates: neighbours and scores from its finite
/// coordinates only, then the score-weighted mean of the neighbours' positions; the landmarks'
/// centroid when no coordinate is finite. x: d values; y: 2 values.
void placeNonFinitePoint(const float* x, const LandmarkModel& model, const ScoreSetup& setup,
                         float* y);

/// True when all d values of x are finite.
inline bool allFinite(const float* x, size_t d) {
    bool ok = true;
    // Branch-free so the scan vectorises: x - x is 0 for finite values and NaN otherwise.
    for (size_t t = 0; t < d; ++t) ok &= (x[t] - x[t]) == 0.0f;
    return ok;
}

}  // namespace sepal
