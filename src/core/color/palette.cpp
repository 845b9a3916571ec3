#include "core/color/palette.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sepal::color {
namespace {

// Chosen by hand, then the weakest entries replaced by a search for the colour farthest (in
// OKLab) from the rest and from white and the missing-value grey; neighbours in the list differ
// strongly in hue so that the first few labels are the easiest to tell apart. The six darkest
// (navy, dark teal, deep blue and purples, maroon: OKLab lightness below 0.48, lost on the dark
// canvas) were replaced by the same search among colours of lightness 0.58 to 0.80.
constexpr uint32_t kPalette[kPaletteSize] = {
    0x2f6fdb, 0xe8541c, 0x2ca02c, 0xd62fa6, 0xf2b705, 0x17becf, 0x8c564b, 0x9467bd,
    0x7fbf3f, 0xff7f9e, 0xbb00ff, 0xa6761d, 0xff0066, 0xc51b1b, 0x5599ff, 0xb3a1e6,
    0x6b6b00, 0x22ddaa, 0xff8833, 0x9ecae1, 0xff66ff, 0xe7d27c, 0x8855ff, 0x00a087};

float linearFromSrgb(uint8_t c) {
    const float x = static_cast<float>(c) / 255.0f;
    return x <= 0.04045f ? x / 12.92f : std::pow((x + 0.055f) / 1.055f, 2.4f);
}

struct Lab {
    float l, a, b;
};

// OKLab (Ottosson 2020): a perceptually uniform space where Euclidean distance tracks contrast.
Lab oklab(Rgba8 c) {
    const float r = linearFromSrgb(c.r), g = linearFromSrgb(c.g), b = linearFromSrgb(c.b);
    const float l = std::cbrt(0.4122214708f * r + 0.5363325363f * g + 0.0514459929f * b);
    const float m = std::cbrt(0.2119034982f * r + 0.6806995451f * g + 0.1073969566f * b);
    const float s = std::cbrt(0.0883024619f * r + 0.2817188376f * g + 0.6299787005f * b);
    return {0.2104542553f * l + 0.7936177850f * m - 0.0040720468f * s,
            1.9779984951f * l - 2.4285922050f * m + 0.4505937099f * s,
            0.0259040371f * l + 0.7827717662f * m - 0.8086757660f * s};
}

uint8_t mix(uint8_t c, uint8_t toward, float f) {
    return static_cast<uint8_t>(std::lround(c + (toward - c) * f));
}

}  // namespace

Rgba8 paletteColor(size_t i) {
    Rgba8 c = rgbHex(kPalette[i % kPaletteSize]);
    const size_t round = i / kPaletteSize;
    if (round == 0) return c;
    // Later rounds alternate lighter and darker shades, each round a step further.
    const uint8_t toward = round % 2 == 1 ? 255 : 0;
    const float f = std::min(0.25f * static_cast<float>((round + 1) / 2), 0.75f);
    return Rgba8{mix(c.r, toward, f), mix(c.g, toward, f), mix(c.b, toward, f), 255};
}

float perceptualDistance(Rgba8 a, Rgba8 b) {
    const Lab x = oklab(a), y = oklab(b);
    return std::sqrt((x.l - y.l) * (x.l - y.l) + (x.a - y.a) * (x.a - y.a) +
                     (x.b - y.b) * (x.b - y.b));
}

}  // namespace sepal::color
