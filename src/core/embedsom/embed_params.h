#pragma once
// EmbedSOM's parameters on their own, so that what stores them (model files, sessions) need not
// know the projector.

#include <cstddef>

namespace sepal {

/// EmbedSOM parameters, named and defaulted as in the EmbedSOM R package.
struct EmbedParams {
    int k = 0;            ///< neighbours; 0 means the default floor(1 + sqrt(g)); 4 <= k <= g
    float smooth = 0.0f;  ///< >= -3; larger values smooth more
    float adjust = 1.0f;  ///< >= 0; how much far-apart 2D landmarks are discounted
};

/// The k actually used for g landmarks (resolves the default); throws InputError when invalid.
int resolveK(const EmbedParams& params, size_t g);
/// Throws InputError naming the parameter and the allowed range when a parameter is invalid.
void validateParams(const EmbedParams& params, size_t g);

}  // namespace sepal
