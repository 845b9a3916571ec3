#include "core/raster/density.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sepal::raster {
namespace {

// One pass of a separable Gaussian blur along rows (stride 1) or columns (stride grid).
void blur(std::vector<float>& h, int grid, const std::vector<float>& kernel, bool rows) {
    const int r = static_cast<int>(kernel.size() / 2);
    std::vector<float> line(grid), out(grid);
    for (int a = 0; a < grid; ++a) {
        for (int b = 0; b < grid; ++b) line[b] = rows ? h[a * grid + b] : h[b * grid + a];
        for (int b = 0; b < grid; ++b) {
            float s = 0.0f;
            for (int t = -r; t <= r; ++t) {
                const int c = b + t;
                if (c >= 0 && c < grid) s += kernel[t + r] * line[c];
            }
            out[b] = s;
        }
        for (int b = 0; b < grid; ++b) (rows ? h[a * grid + b] : h[b * grid + a]) = out[b];
    }
}

}  // namespace

std::vector<float> pointDensity(const float* xy, size_t n, int grid, float bandwidth) {
    grid = std::max(grid, 2);
    std::vector<float> density(n, std::numeric_limits<float>::quiet_NaN());
    double minX = std::numeric_limits<double>::infinity(), maxX = -minX, minY = minX, maxY = -minX;
    for (size_t i = 0; i < n; ++i) {
        const double x = xy[2 * i], y = xy[2 * i + 1];
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        minX = std::min(minX, x), maxX = std::max(maxX, x);
        minY = std::min(minY, y), maxY = std::max(maxY, y);
    }
    if (!(maxX >= minX)) return density;
    const double sx = (grid - 1) / std::max(maxX - minX, 1e-12);
    const double sy = (grid - 1) / std::max(maxY - minY, 1e-12);
    std::vector<float> h(static_cast<size_t>(grid) * grid, 0.0f);
    auto cell = [&](size_t i, int& x0, int& y0, float& fx, float& fy) {
        const double gx = (xy[2 * i] - minX) * sx, gy = (xy[2 * i + 1] - minY) * sy;
        x0 = std::min(static_cast<int>(gx), grid - 2),
        y0 = std::min(static_cast<int>(gy), grid - 2);
        fx = static_cast<float>(gx - x0), fy = static_cast<float>(gy - y0);
    };
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(xy[2 * i]) || !std::isfinite(xy[2 * i + 1])) continue;
        int x0, y0;
        float fx, fy;
        cell(i, x0, y0, fx, fy);
        h[y0 * grid + x0] += (1 - fx) * (1 - fy);
        h[y0 * grid + x0 + 1] += fx * (1 - fy);
        h[(y0 + 1) * grid + x0] += (1 - fx) * fy;
        h[(y0 + 1) * grid + x0 + 1] += fx * fy;
    }
    const float sigma = std::max(bandwidth, 0.3f);
    const int r = static_cast<int>(std::ceil(3.0f * sigma));
    std::vector<float> kernel(2 * r + 1);
    for (int t = -r; t <= r; ++t) kernel[t + r] = std::exp(-0.5f * t * t / (sigma * sigma));
    blur(h, grid, kernel, true);
    blur(h, grid, kernel, false);
    float peak = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(xy[2 * i]) || !std::isfinite(xy[2 * i + 1])) continue;
        int x0, y0;
        float fx, fy;
        cell(i, x0, y0, fx, fy);
        const float v =
            (1 - fx) * (1 - fy) * h[y0 * grid + x0] + fx * (1 - fy) * h[y0 * grid + x0 + 1] +
            (1 - fx) * fy * h[(y0 + 1) * grid + x0] + fx * fy * h[(y0 + 1) * grid + x0 + 1];
        density[i] = v;
        peak = std::max(peak, v);
    }
    if (peak > 0.0f)
        for (float& d : density)
            if (std::isfinite(d)) d /= peak;
    return density;
}

}  // namespace sepal::raster
