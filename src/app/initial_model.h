#pragma once
// A first landmark model before any training: landmarks on data points, laid out by PCA.

#include <cstddef>
#include <cstdint>

#include "core/common/matrix.h"
#include "core/model/landmark_model.h"

namespace sepal::app {

/// g landmarks picked from `points` (n x d) by farthest-point sampling from a seeded start, their 2D
/// positions the first two principal components scaled to about [-1, 1]; edges join each
/// landmark to its `graphK` nearest in 2D (0 = no graph).
LandmarkModel makeInitialModel(const Matrix& points, size_t g, size_t graphK, uint64_t seed);

/// Replaces the model's edges by a k-nearest-neighbour graph of its 2D positions.
void rebuildGraph(LandmarkModel& model, size_t graphK);

/// High-dimensional position for a landmark placed at 2D (x, y): the distance-weighted mean of the
/// `neighbours` landmarks nearest in 2D. out: d values.
void fitHighFromLow(const LandmarkModel& model, float x, float y, size_t neighbours, float* out);

}  // namespace sepal::app
