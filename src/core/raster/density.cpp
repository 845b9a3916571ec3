#include "core/raster/density.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sepal::raster {

std::vector<float> binnedLogDensity(const float* xy, size_t n, const std::vector<uint8_t>& counted,
                                    float& top) {
    std::vector<float> density(n, std::numeric_limits<float>::quiet_NaN());
    top = 0.0f;
    const auto finite = [&](size_t i) {
        return std::isfinite(xy[2 * i]) && std::isfinite(xy[2 * i + 1]);
    };
    float minX = std::numeric_limits<float>::infinity(), maxX = -minX, minY = minX, maxY = -minX;
    for (size_t i = 0; i < n; ++i) {
        if (!finite(i)) continue;
        minX = std::min(minX, xy[2 * i]), maxX = std::max(maxX, xy[2 * i]);
        minY = std::min(minY, xy[2 * i + 1]), maxY = std::max(maxY, xy[2 * i + 1]);
    }
    if (!(maxX >= minX)) return density;
    const int grid = kDensityGrid;
    const float sx = float(grid) / std::max(maxX - minX, 1e-6f);
    const float sy = float(grid) / std::max(maxY - minY, 1e-6f);
    std::vector<uint32_t> counts(size_t(grid) * grid, 0), cell(n, 0);
    for (size_t i = 0; i < n; ++i) {
        if (!finite(i)) continue;
        const int gx = std::clamp(int((xy[2 * i] - minX) * sx), 0, grid - 1);
        const int gy = std::clamp(int((xy[2 * i + 1] - minY) * sy), 0, grid - 1);
        cell[i] = uint32_t(gy * grid + gx);
        if (counted.empty() || (i < counted.size() && counted[i])) ++counts[cell[i]];
    }
    top = std::log1p(float(*std::max_element(counts.begin(), counts.end())));
    for (size_t i = 0; i < n; ++i)
        if (finite(i)) density[i] = std::log1p(float(counts[cell[i]]));
    return density;
}

}  // namespace sepal::raster
