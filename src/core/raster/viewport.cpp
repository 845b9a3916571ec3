#include "core/raster/viewport.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sepal::raster {

Viewport fitViewport(const float* xy, size_t n, int left, int top, int width, int height,
                     double margin) {
    double minX = std::numeric_limits<double>::infinity(), maxX = -minX;
    double minY = minX, maxY = -minX;
    for (size_t i = 0; i < n; ++i) {
        const double x = xy[2 * i], y = xy[2 * i + 1];
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        minX = std::min(minX, x), maxX = std::max(maxX, x);
        minY = std::min(minY, y), maxY = std::max(maxY, y);
    }
    if (!(maxX >= minX)) minX = minY = -1.0, maxX = maxY = 1.0;
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
