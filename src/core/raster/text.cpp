#include "core/raster/text.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stb_easy_font.h>
#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <stb_truetype.h>
#pragma GCC diagnostic pop

#include "core/common/text.h"

namespace sepal::raster {
namespace {

/// Where the font is looked for: SEPAL_FONT, then Debian's fonts-dejavu-core (which the app's
/// own text uses too).
constexpr const char* kFontPaths[] = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
};

/// DejaVu Sans, read once; `loaded` is false when no font file is found (the pictures then fall
/// back to stb_easy_font's built-in pixel glyphs).
struct Font {
    std::vector<unsigned char> bytes;
    stbtt_fontinfo info{};
    bool loaded = false;
    int ascent = 0, descent = 0, lineGap = 0;
};

const Font& font() {
    static const Font f = [] {
        Font out;
        std::vector<std::string> paths;
        if (const char* env = std::getenv("SEPAL_FONT")) paths.push_back(env);
        for (const char* p : kFontPaths) paths.push_back(p);
        for (const std::string& path : paths) {
            std::ifstream in(path, std::ios::binary);
            if (!in) continue;
            out.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            if (out.bytes.size() > 12 &&
                stbtt_InitFont(&out.info, out.bytes.data(),
                               stbtt_GetFontOffsetForIndex(out.bytes.data(), 0))) {
                stbtt_GetFontVMetrics(&out.info, &out.ascent, &out.descent, &out.lineGap);
                out.loaded = true;
                break;
            }
        }
        return out;
    }();
    return f;
}

std::string printable(const std::string& text) {
    std::string s = text;
    for (char& c : s)
        if (c < 32 || c > 126) c = '?';
    return s;
}

/// The font's scale for a line `scale` steps high: 12 pixels a step, as the pixel glyphs.
float pixelScale(const Font& f, int scale) {
    return stbtt_ScaleForPixelHeight(&f.info, float(textHeight(scale)));
}

}  // namespace

bool textHasFont() {
    return font().loaded;
}

int textWidth(const std::string& text, int scale) {
    const Font& f = font();
    if (!f.loaded) return stb_easy_font_width(printable(text).data()) * std::max(scale, 1);
    const float s = pixelScale(f, scale);
    const std::vector<int> cps = utf8CodePoints(text);
    float width = 0;
    for (size_t i = 0; i < cps.size(); ++i) {
        int advance = 0, bearing = 0;
        stbtt_GetCodepointHMetrics(&f.info, cps[i], &advance, &bearing);
        width += float(advance) * s;
        if (i + 1 < cps.size())
            width += float(stbtt_GetCodepointKernAdvance(&f.info, cps[i], cps[i + 1])) * s;
    }
    return int(std::ceil(width));
}

int textHeight(int scale) {
    return 12 * std::max(scale, 1);
}

void drawText(Image& image, int x, int y, const std::string& text, color::Rgba8 color, int scale) {
    scale = std::max(scale, 1);
    const Font& f = font();
    if (f.loaded) {
        // Antialiased glyphs from DejaVu Sans: coverage blended over what is there.
        const float s = pixelScale(f, scale);
        const float baseline = float(y) + float(f.ascent) * s;
        const std::vector<int> cps = utf8CodePoints(text);
        float pen = float(x);
        std::vector<unsigned char> bitmap;
        for (size_t i = 0; i < cps.size(); ++i) {
            int x0, y0, x1, y1;
            const float shift = pen - std::floor(pen);
            stbtt_GetCodepointBitmapBoxSubpixel(&f.info, cps[i], s, s, shift, 0, &x0, &y0, &x1,
                                                &y1);
            const int w = x1 - x0, h = y1 - y0;
            if (w > 0 && h > 0) {
                bitmap.assign(size_t(w) * size_t(h), 0);
                stbtt_MakeCodepointBitmapSubpixel(&f.info, bitmap.data(), w, h, w, s, s, shift, 0,
                                                  cps[i]);
                const int left = int(std::floor(pen)) + x0, top = int(std::lround(baseline)) + y0;
                for (int row = 0; row < h; ++row)
                    for (int col = 0; col < w; ++col)
                        if (const unsigned char a = bitmap[size_t(row) * size_t(w) + size_t(col)])
                            image.blend(left + col, top + row, color, float(a) / 255.0f);
            }
            int advance = 0, bearing = 0;
            stbtt_GetCodepointHMetrics(&f.info, cps[i], &advance, &bearing);
            pen += float(advance) * s;
            if (i + 1 < cps.size())
                pen += float(stbtt_GetCodepointKernAdvance(&f.info, cps[i], cps[i + 1])) * s;
        }
        return;
    }
    std::string s = printable(text);
    if (s.empty()) return;
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

void drawTextUpwards(Image& image, int x, int bottom, const std::string& text, color::Rgba8 color,
                     int scale) {
    // The glyphs' coverage, drawn upright one pixel down a clear strip, then turned onto the
    // image: the strip's row r lands on column x + r, its column c on row bottom - c.
    const int w = textWidth(text, scale), h = textHeight(scale) + 2;
    const color::Rgba8 opaque{color.r, color.g, color.b, 255};
    Image strip(w, h, color::Rgba8{0, 0, 0, 0});
    drawText(strip, 0, 1, text, opaque, scale);
    for (int sy = 0; sy < h; ++sy)
        for (int sx = 0; sx < w; ++sx)
            if (const uint8_t a = strip.at(sx, sy).a)
                image.blend(x + sy, bottom - sx, opaque, float(a) * float(color.a) / 65025.0f);
}

}  // namespace sepal::raster
