#pragma once
// The checks every projector makes before it starts.

#include <cstddef>

#include "core/embedsom/projector.h"
#include "core/embedsom/scores.h"
#include "core/model/landmark_model.h"

namespace sepal {

/// Validates the model, the parameters and the shapes (points: n x d); returns the score setup.
ScoreSetup checkProjectionInput(const float* points, size_t n, size_t d, const LandmarkModel& model,
                                const EmbedParams& params, const float* out);

}  // namespace sepal
