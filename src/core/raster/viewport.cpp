#include "core/raster/viewport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace sepal::raster {

bool robustExtent(const float* xy, size_t n, Extent& extent) {
    std::vector<float> xs, ys;
    const size_t stride = std::max<size_t>(1, n / 100000);
    for (size_t i = 0; i < n; i += stride)
        if (std::isfinite(xy[2 * i]) && std::isfinite(xy[2 * i + 1]))
            xs.push_back(xy[2 * i]), ys.push_back(xy[2 * i + 1]);
    if (xs.empty()) return false;
    const double last = double(xs.size() - 1);
    const auto low = size_t(std::floor(0.005 * last)), high = size_t(std::ceil(0.995 * last));
    auto at = [](std::vector<float>& v, size_t k) {
        std::nth_element(v.begin(), v.begin() + long(k), v.end());
        return double(v[k]);
    };
    extent = {at(xs, low), at(ys, low), at(xs, high), at(ys, high)};
    return true;
}

Viewport fitViewport(const float* xy, size_t n, int left, int top, int width, int height,
                     double margin) {
    Extent e;
    robustExtent(xy, n, e);
    const double minX = e.minX, minY = e.minY, maxX = e.maxX, maxY = e.maxY;
    Viewport v;
    v.left = left, v.top = top;
    v.width = std::max(width, 1), v.height = std::max(height, 1);
    v.centerX = 0.5 * (minX + maxX);
    v.centerY = 0.5 * (minY + maxY);
    const double usable = std::clamp(1.0 - 2.0 * margin, 0.05, 1.0);
    // A single point (or a line) has no extent along some axis: give it one unit.
    const double spanX = std::max(maxX - minX, 1e-12), spanY = std::max(maxY - minY, 1e-12);
    v.scale = std::min(v.width * usable / spanX, v.height * usable / spanY);
    if (maxX - minX <= 1e-12 && maxY - minY <= 1e-12) v.scale = std::min(v.width, v.height) * 0.25;
    return v;
}

}  // namespace sepal::raster
