#pragma once
// How a trainer takes a whole-data step's landmarks into its model (whole_data_steps.h). Inline:
// two short functions, and core's unity batches stay as they are.

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/common/error.h"
#include "core/model/landmark_edit.h"
#include "core/model/landmark_model.h"
#include "core/train/whole_data_steps.h"

namespace sepal {

/// Throws InputError when the steps' cells do not have the model's dimensions (the data changed
/// under the trainer), before any landmark is read with the wrong stride.
inline void requireWholeDataDims(const LandmarkModel& model, const WholeDataSteps& steps) {
    if (steps.dim() != model.dim)
        throw InputError("the training cells have " + std::to_string(steps.dim()) +
                         " dimensions, the landmarks " + std::to_string(model.dim));
}

/// Copies the step's landmarks into the model, except the rows whose data-space position is
/// locked, and gives the model a new highVersion; throws when the step's shape is not the model's.
inline void adoptWholeDataStep(LandmarkModel& model, const WholeDataResult& step) {
    const size_t g = model.count(), d = model.dim;
    // A wrong shape is a programming error of the steps, not bad input: nothing is moved.
    if (step.landmarks.size() != g * d)
        throw std::logic_error("a whole-data step gave " + std::to_string(step.landmarks.size()) +
                               " values for " + std::to_string(g) + " x " + std::to_string(d) +
                               " landmarks");
    for (size_t j = 0; j < g; ++j)
        if (!highLocked(model, j)) std::copy_n(step.landmarks.data() + j * d, d, model.highRow(j));
    ++model.highVersion;
}

}  // namespace sepal
