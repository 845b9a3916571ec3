#include "core/raster/image.h"

#include <algorithm>
#include <cmath>

namespace sepal::raster {

Image::Image(int w, int h, color::Rgba8 fill)
    : width(std::max(w, 0)),
      height(std::max(h, 0)),
      pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 4) {
    for (size_t i = 0; i < pixels.size(); i += 4) {
        pixels[i] = fill.r;
        pixels[i + 1] = fill.g;
        pixels[i + 2] = fill.b;
        pixels[i + 3] = fill.a;
    }
}

color::Rgba8 Image::at(int x, int y) const {
    const uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 4];
    return {p[0], p[1], p[2], p[3]};
}

void Image::set(int x, int y, color::Rgba8 c) {
    if (!contains(x, y)) return;
    uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 4];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
    p[3] = c.a;
}

void Image::blend(int x, int y, color::Rgba8 c, float coverage) {
    if (!contains(x, y)) return;
    const float a = std::clamp(coverage, 0.0f, 1.0f) * static_cast<float>(c.a) / 255.0f;
    if (a <= 0.0f) return;
    uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 4];
    // "Over" with straight alpha: the destination's own alpha weighs what shows through.
    const float da = static_cast<float>(p[3]) / 255.0f;
    const float oa = a + da * (1.0f - a);
    auto channel = [&](uint8_t src, uint8_t dst) {
        const float v = (src * a + dst * da * (1.0f - a)) / std::max(oa, 1e-6f);
        return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 255.0f)));
    };
    p[0] = channel(c.r, p[0]);
    p[1] = channel(c.g, p[1]);
    p[2] = channel(c.b, p[2]);
    p[3] = static_cast<uint8_t>(std::lround(oa * 255.0f));
}

void Image::fillRect(int x0, int y0, int x1, int y1, color::Rgba8 c) {
    x0 = std::max(x0, 0), y0 = std::max(y0, 0);
    x1 = std::min(x1, width), y1 = std::min(y1, height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) blend(x, y, c);
}

}  // namespace sepal::raster
