#include "core/raster/density.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "core/raster/viewport.h"

namespace sepal::raster {

namespace {
// The grid spans the points' bounding box, but no more than their robust extent (viewport.h)
// widened by this share of its span on each side: one stray cell far out no longer stretches
// the bins until the whole picture falls into a few of them. Cells beyond are counted in bins of
// the same size outside the grid, never piled into its edge bins.
constexpr double kGridMargin = 0.1;

/// A bin's column or row, unclamped (far strays limited so that it stays a 32-bit integer).
int64_t binOf(double v, double origin, double scale) {
    return int64_t(std::floor(std::clamp((v - origin) * scale, -2e9, 2e9)));
}
}  // namespace

std::vector<float> binnedLogDensity(const float* xy, size_t n, const std::vector<uint8_t>& counted,
                                    float& top) {
    std::vector<float> density(n, std::numeric_limits<float>::quiet_NaN());
    top = 0.0f;
    const auto finite = [&](size_t i) {
        return std::isfinite(xy[2 * i]) && std::isfinite(xy[2 * i + 1]);
    };
    double minX = std::numeric_limits<double>::infinity(), maxX = -minX, minY = minX, maxY = -minX;
    for (size_t i = 0; i < n; ++i) {
        if (!finite(i)) continue;
        minX = std::min(minX, double(xy[2 * i])), maxX = std::max(maxX, double(xy[2 * i]));
        minY = std::min(minY, double(xy[2 * i + 1])), maxY = std::max(maxY, double(xy[2 * i + 1]));
    }
    if (!(maxX >= minX)) return density;
    // An axis whose robust extent is a point (most cells on one value) spans the whole box.
    Extent robust;
    if (robustExtent(xy, n, robust)) {
        const double mx = kGridMargin * (robust.maxX - robust.minX);
        const double my = kGridMargin * (robust.maxY - robust.minY);
        if (mx > 0)
            minX = std::max(minX, robust.minX - mx), maxX = std::min(maxX, robust.maxX + mx);
        if (my > 0)
            minY = std::max(minY, robust.minY - my), maxY = std::min(maxY, robust.maxY + my);
    }
    const int grid = kDensityGrid;
    const double sx = double(grid) / std::max(maxX - minX, 1e-6);
    const double sy = double(grid) / std::max(maxY - minY, 1e-6);
    std::vector<uint32_t> counts(size_t(grid) * grid, 0);
    std::unordered_map<uint64_t, uint32_t> beyond;  // bins outside the grid, by column and row
    // A cell's bin: its index in the grid, or (past the grid) its key in `beyond`.
    const auto binKey = [&](size_t i, bool& inGrid) -> uint64_t {
        int64_t gx = binOf(xy[2 * i], minX, sx), gy = binOf(xy[2 * i + 1], minY, sy);
        // The box's far edge belongs to the last bin.
        if (gx == grid && double(xy[2 * i]) <= maxX) gx = grid - 1;
        if (gy == grid && double(xy[2 * i + 1]) <= maxY) gy = grid - 1;
        inGrid = gx >= 0 && gx < grid && gy >= 0 && gy < grid;
        return inGrid ? uint64_t(gy * grid + gx)
                      : uint64_t(uint32_t(int32_t(gx))) << 32 | uint32_t(int32_t(gy));
    };
    for (size_t i = 0; i < n; ++i) {
        if (!finite(i) || !(counted.empty() || (i < counted.size() && counted[i]))) continue;
        bool inGrid = false;
        const uint64_t key = binKey(i, inGrid);
        ++(inGrid ? counts[key] : beyond[key]);
    }
    uint32_t most = *std::max_element(counts.begin(), counts.end());
    for (const auto& b : beyond) most = std::max(most, b.second);
    top = std::log1p(float(most));
    for (size_t i = 0; i < n; ++i) {
        if (!finite(i)) continue;
        bool inGrid = false;
        const uint64_t key = binKey(i, inGrid);
        uint32_t count = 0;
        if (inGrid) {
            count = counts[key];
        } else if (const auto it = beyond.find(key); it != beyond.end()) {
            count = it->second;
        }
        density[i] = std::log1p(float(count));
    }
    return density;
}

}  // namespace sepal::raster
