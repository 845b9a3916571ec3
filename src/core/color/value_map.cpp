#include "core/color/value_map.h"

#include <algorithm>
#include <cmath>

namespace sepal::color {

ValueRange percentileRange(const float* values, size_t n, size_t stride, double loPercent,
                           double hiPercent) {
    std::vector<float> finite;
    finite.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const float v = values[i * stride];
        if (std::isfinite(v)) finite.push_back(v);
    }
    if (finite.empty()) return {0.0f, 1.0f};
    // Nearest-rank percentiles: exact, and nth_element keeps this linear in n.
    auto at = [&](double percent) {
        const double p = std::clamp(percent, 0.0, 100.0) / 100.0;
        const auto rank =
            static_cast<size_t>(std::llround(p * static_cast<double>(finite.size() - 1)));
        std::nth_element(finite.begin(), finite.begin() + static_cast<std::ptrdiff_t>(rank),
                         finite.end());
        return finite[rank];
    };
    ValueRange range{at(std::min(loPercent, hiPercent)), at(std::max(loPercent, hiPercent))};
    if (!(range.hi > range.lo)) {
        // A constant column still gets a usable range, centred on its value.
        const float pad = std::max(std::abs(range.lo) * 1e-3f, 0.5f);
        range.lo -= pad;
        range.hi += pad;
    }
    return range;
}

float normalize(float v, ValueRange range) {
    if (!std::isfinite(v)) return std::nanf("");
    const float span = range.hi - range.lo;
    if (!(span > 0.0f)) return 0.5f;
    return std::clamp((v - range.lo) / span, 0.0f, 1.0f);
}

std::vector<Rgba8> mapValues(const float* values, size_t n, size_t stride, ValueRange range,
                             Colormap map) {
    const auto table = colormapTable(map);
    std::vector<Rgba8> out(n);
    for (size_t i = 0; i < n; ++i) {
        const float t = normalize(values[i * stride], range);
        out[i] =
            std::isnan(t) ? kMissingColor : table[static_cast<size_t>(std::lround(t * 255.0f))];
    }
    return out;
}

}  // namespace sepal::color
