#include "core/raster/shapes.h"

#include <algorithm>
#include <cmath>

namespace sepal::raster {

namespace {

/// Coverage of a pixel whose centre lies `d` pixels from a shape's middle line or centre, the
/// shape reaching `half` pixels from it: a one-pixel ramp across the edge.
float coverageAt(double d, double half) {
    return float(std::clamp(half + 0.5 - d, 0.0, 1.0));
}

}  // namespace

void fillDisc(Image& image, double cx, double cy, double r, color::Rgba8 color) {
    const int x0 = int(std::floor(cx - r - 1)), x1 = int(std::ceil(cx + r + 1));
    const int y0 = int(std::floor(cy - r - 1)), y1 = int(std::ceil(cy + r + 1));
    for (int y = std::max(y0, 0); y <= std::min(y1, image.height - 1); ++y)
        for (int x = std::max(x0, 0); x <= std::min(x1, image.width - 1); ++x) {
            const float c = coverageAt(std::hypot(x + 0.5 - cx, y + 0.5 - cy), r);
            if (c > 0.0f) image.blend(x, y, color, c);
        }
}

void drawSegment(Image& image, double x0, double y0, double x1, double y1, double width,
                 color::Rgba8 color) {
    const double half = width / 2.0, dx = x1 - x0, dy = y1 - y0;
    const double length2 = dx * dx + dy * dy;
    const int left = int(std::floor(std::min(x0, x1) - half - 1));
    const int right = int(std::ceil(std::max(x0, x1) + half + 1));
    const int top = int(std::floor(std::min(y0, y1) - half - 1));
    const int bottom = int(std::ceil(std::max(y0, y1) + half + 1));
    for (int y = std::max(top, 0); y <= std::min(bottom, image.height - 1); ++y)
        for (int x = std::max(left, 0); x <= std::min(right, image.width - 1); ++x) {
            const double px = x + 0.5 - x0, py = y + 0.5 - y0;
            // The distance to the nearest point of the segment.
            const double t = length2 > 0 ? std::clamp((px * dx + py * dy) / length2, 0.0, 1.0) : 0;
            const float c = coverageAt(std::hypot(px - t * dx, py - t * dy), half);
            if (c > 0.0f) image.blend(x, y, color, c);
        }
}

}  // namespace sepal::raster
