#pragma once
// An 8-bit sRGB colour with straight (not premultiplied) alpha, shared by pictures and the GUI.

#include <cstdint>

namespace sepal::color {

/// One sRGB colour, 8 bits per channel, straight alpha (255 = opaque).
struct Rgba8 {
    uint8_t r = 0;    ///< red, sRGB-encoded
    uint8_t g = 0;    ///< green, sRGB-encoded
    uint8_t b = 0;    ///< blue, sRGB-encoded
    uint8_t a = 255;  ///< opacity

    /// Channel-wise equality.
    friend bool operator==(const Rgba8&, const Rgba8&) = default;
};

/// The colour 0xRRGGBB, opaque.
constexpr Rgba8 rgbHex(uint32_t hex) {
    return Rgba8{static_cast<uint8_t>(hex >> 16), static_cast<uint8_t>(hex >> 8),
                 static_cast<uint8_t>(hex), 255};
}

/// Colour given to values that cannot be mapped (NaN, infinity, a missing label).
constexpr Rgba8 kMissingColor{150, 150, 150, 255};

}  // namespace sepal::color
