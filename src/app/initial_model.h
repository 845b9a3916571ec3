#pragma once
// A first landmark model before any training, and landmark placement for Ctrl+click.

#include <cstddef>
#include <cstdint>

#include "core/common/matrix.h"
#include "core/model/landmark_model.h"
#include "core/train/trainer_registry.h"

namespace sepal::app {

/// About g landmarks for `points` (n x d), started as a trainer's entry says (TrainerInit): a
/// square grid on the PCA plane (a SOM's map is its 2D layout), or a seeded sample of the data
/// laid out by PCA; edges are the data-space k-NN graph with `graphK` neighbours (0 = none).
LandmarkModel makeInitialModel(const Matrix& points, size_t g, size_t graphK, uint64_t seed,
                               TrainerInit start);

/// High-dimensional position for a landmark placed at 2D (x, y): the inverse-distance weighted
/// mean of the `neighbours` landmarks nearest in 2D. out: d values.
void fitHighFromLow(const LandmarkModel& model, float x, float y, size_t neighbours, float* out);

}  // namespace sepal::app
