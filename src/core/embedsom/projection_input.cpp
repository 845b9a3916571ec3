#include "core/embedsom/projection_input.h"

#include <string>

#include "core/common/error.h"

namespace sepal {

ScoreSetup checkProjectionInput(const float* points, size_t n, size_t d, const LandmarkModel& model,
                                const EmbedParams& params, const float* out) {
    model.validate();
    if (d != model.dim)
        throw InputError("the points have " + std::to_string(d) + " dimensions but the landmarks " +
                         std::to_string(model.dim) +
                         "; project data with the columns the model was trained on");
    if (d == 0) throw InputError("cannot project points with zero dimensions");
    validateParams(params, model.count());
    if (n > 0 && (!points || !out))
        throw InputError("projection of " + std::to_string(n) + " points needs input and output");
    return makeScoreSetup(resolveK(params, model.count()), model.count(), params.smooth);
}

}  // namespace sepal
