#include "core/raster/scatter.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sepal::raster {
namespace {

// Per-pixel sums of coverage weight and weighted colour over the plot area.
struct Accumulator {
    int left, top, width, height;
    std::vector<float> weight;  // width * height
    std::vector<float> rgb;     // width * height * 3, weighted sums

    Accumulator(const Viewport& v)
        : left(v.left),
          top(v.top),
          width(v.width),
          height(v.height),
          weight(static_cast<size_t>(v.width) * v.height, 0.0f),
          rgb(weight.size() * 3, 0.0f) {}

    void add(int x, int y, color::Rgba8 c, float w) {
        x -= left, y -= top;
        if (x < 0 || y < 0 || x >= width || y >= height || w <= 0.0f) return;
        const size_t i = static_cast<size_t>(y) * width + x;
        weight[i] += w;
        rgb[3 * i] += w * c.r;
        rgb[3 * i + 1] += w * c.g;
        rgb[3 * i + 2] += w * c.b;
    }
};

void splat(Accumulator& acc, double px, double py, float radius, color::Rgba8 c) {
    if (radius <= 0.75f) {
        // Bilinear footprint: a sub-pixel point spreads one unit of weight over 4 pixels, so
        // moving it by a fraction of a pixel changes the picture smoothly.
        const double fx = px - 0.5, fy = py - 0.5;
        const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
        const float ax = static_cast<float>(fx - x0), ay = static_cast<float>(fy - y0);
        acc.add(x0, y0, c, (1 - ax) * (1 - ay));
        acc.add(x0 + 1, y0, c, ax * (1 - ay));
        acc.add(x0, y0 + 1, c, (1 - ax) * ay);
        acc.add(x0 + 1, y0 + 1, c, ax * ay);
        return;
    }
    // A disc with a one-pixel soft edge.
    const int r = static_cast<int>(std::ceil(radius + 0.5f));
    const int cx = static_cast<int>(std::floor(px)), cy = static_cast<int>(std::floor(py));
    for (int y = cy - r; y <= cy + r; ++y)
        for (int x = cx - r; x <= cx + r; ++x) {
            const double dx = x + 0.5 - px, dy = y + 0.5 - py;
            const float d = static_cast<float>(std::sqrt(dx * dx + dy * dy));
            acc.add(x, y, c, std::clamp(radius + 0.5f - d, 0.0f, 1.0f));
        }
}

}  // namespace

float autoPointRadius(size_t n, int width, int height) {
    // Aim for points about a fifth of the mean spacing they would have if spread evenly.
    const double area = static_cast<double>(std::max(width, 1)) * std::max(height, 1);
    const double spacing = std::sqrt(area / static_cast<double>(std::max<size_t>(n, 1)));
    return static_cast<float>(std::clamp(spacing * 0.2, 0.5, 3.0));
}

void drawPoints(Image& image, const Viewport& view, const float* xy, size_t n,
                const color::Rgba8* colors, size_t colorCount, const ScatterOptions& options) {
    if (n == 0 || colorCount == 0) return;
    Accumulator acc(view);
    const float radius = options.pointRadius > 0.0f ? options.pointRadius
                                                    : autoPointRadius(n, view.width, view.height);
    for (size_t i = 0; i < n; ++i) {
        const float x = xy[2 * i], y = xy[2 * i + 1];
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        const color::Rgba8 c = colors[colorCount == 1 ? 0 : i];
        splat(acc, view.toPixelX(x), view.toPixelY(y), radius, c);
    }

    float saturation = options.saturationCount;
    if (saturation <= 0.0f) {
        std::vector<float> covered;
        for (float w : acc.weight)
            if (w > 0.0f) covered.push_back(w);
        if (covered.empty()) return;
        const size_t rank = (covered.size() - 1) * 99 / 100;
        std::nth_element(covered.begin(), covered.begin() + static_cast<std::ptrdiff_t>(rank),
                         covered.end());
        saturation = covered[rank];
    }
    // A pixel's weight counts the points covering it (a fully covered pixel adds 1 per point).
    const float logSat = std::log1p(std::max(saturation, 1.0f));
    const float minOpacity = std::clamp(options.minOpacity, 0.0f, 1.0f);
    for (int y = 0; y < acc.height; ++y)
        for (int x = 0; x < acc.width; ++x) {
            const size_t i = static_cast<size_t>(y) * acc.width + x;
            const float w = acc.weight[i];
            if (w <= 0.0f) continue;
            const float tone = std::min(std::log1p(w) / logSat, 1.0f);
            // Half a point's weight already counts as full coverage: a lone sub-pixel point
            // spread over 4 pixels must stay visible.
            const float coverage = std::min(2.0f * w, 1.0f);
            const float opacity = coverage * (minOpacity + (1.0f - minOpacity) * tone);
            const color::Rgba8 mean{static_cast<uint8_t>(std::lround(acc.rgb[3 * i] / w)),
                                    static_cast<uint8_t>(std::lround(acc.rgb[3 * i + 1] / w)),
                                    static_cast<uint8_t>(std::lround(acc.rgb[3 * i + 2] / w)), 255};
            image.blend(acc.left + x, acc.top + y, mean, opacity);
        }
}

}  // namespace sepal::raster
