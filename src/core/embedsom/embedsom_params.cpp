#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/common/error.h"
#include "core/embedsom/embed_params.h"

namespace sepal {

namespace {

std::string show(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

int resolveK(const EmbedParams& params, size_t g) {
    if (g == 0) throw InputError("EmbedSOM needs landmarks: the model has none");
    const long long gl = static_cast<long long>(g);
    if (params.k == 0) {
        // floor(1 + sqrt(g)), kept inside the allowed range for small models.
        const long long k = static_cast<long long>(std::floor(1.0 + std::sqrt(double(g))));
        if (gl < 4)
            throw InputError("EmbedSOM needs at least 4 landmarks for k >= 4; the model has " +
                             std::to_string(g));
        return static_cast<int>(std::min(std::max(k, 4LL), gl));
    }
    if (params.k < 4 || params.k > gl)
        throw InputError("k = " + std::to_string(params.k) +
                         " is out of range: k (neighbours) must satisfy 4 <= k <= g = " +
                         std::to_string(g) + " (the number of landmarks); 0 picks the default");
    return params.k;
}

void validateParams(const EmbedParams& params, size_t g) {
    if (!std::isfinite(params.smooth) || params.smooth < -3.0f)
        throw InputError("smooth = " + show(params.smooth) +
                         " is out of range: smooth must be a finite number >= -3 (default 0)");
    if (!std::isfinite(params.adjust) || params.adjust < 0.0f)
        throw InputError("adjust = " + show(params.adjust) +
                         " is out of range: adjust must be a finite number >= 0 (default 1)");
    resolveK(params, g);
}

}  // namespace sepal
