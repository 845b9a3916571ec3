#include "core/raster/text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace sepal::raster {
namespace {

std::string printable(const std::string& text) {
    std::string s = text;
    for (char& c : s)
        if (c < 32 || c > 126) c = '?';
    return s;
}

}  // namespace

int textWidth(const std::string& text, int scale) {
    std::string s = printable(text);
    return stb_easy_font_width(s.data()) * std::max(scale, 1);
}

int textHeight(int scale) {
    return 12 * std::max(scale, 1);
}

void drawText(Image& image, int x, int y, const std::string& text, color::Rgba8 color, int scale) {
    std::string s = printable(text);
    if (s.empty()) return;
    scale = std::max(scale, 1);
    // The font emits about 270 bytes of vertices per character; give it room for the worst case.
    std::vector<char> buffer(s.size() * 1200 + 64);
    const int quads = stb_easy_font_print(0.0f, 0.0f, s.data(), nullptr, buffer.data(),
                                          static_cast<int>(buffer.size()));
    struct Vertex {
        float x, y, z;
        unsigned char rgba[4];
    };
    for (int q = 0; q < quads; ++q) {
        Vertex v[4];
        std::memcpy(v, buffer.data() + q * sizeof(v), sizeof(v));
        // Each quad is an axis-aligned rectangle of font pixels: vertices 0 and 2 are opposite.
        const float x0 = std::min(v[0].x, v[2].x), x1 = std::max(v[0].x, v[2].x);
        const float y0 = std::min(v[0].y, v[2].y), y1 = std::max(v[0].y, v[2].y);
        image.fillRect(x + static_cast<int>(std::lround(x0 * scale)),
                       y + static_cast<int>(std::lround(y0 * scale)),
                       x + static_cast<int>(std::lround(x1 * scale)),
                       y + static_cast<int>(std::lround(y1 * scale)), color);
    }
}

}  // namespace sepal::raster
