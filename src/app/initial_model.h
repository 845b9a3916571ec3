#pragma once
// A first landmark model before any training, and landmark placement for Ctrl+click.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/matrix.h"
#include "core/model/landmark_model.h"

namespace sepal::app {

/// g landmarks for `points` (n x d): a square grid on the PCA plane for the SOM trainers (their
/// map is the 2D layout), else a seeded sample of the data laid out by PCA; edges are the
/// data-space k-NN graph with `graphK` neighbours (0 = none).
LandmarkModel makeInitialModel(const Matrix& points, size_t g, size_t graphK, uint64_t seed,
                               const std::string& trainer);

/// High-dimensional position for a landmark placed at 2D (x, y): the inverse-distance weighted
/// mean of the `neighbours` landmarks nearest in 2D. out: d values.
void fitHighFromLow(const LandmarkModel& model, float x, float y, size_t neighbours, float* out);

}  // namespace sepal::app
