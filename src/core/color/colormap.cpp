#include "core/color/colormap.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <span>

namespace sepal::color {
namespace {

// Evenly spaced control points, written down by eye from the published look of each map;
// 9 to 13 knots with linear interpolation stay within a few sRGB steps of the smooth originals,
// which is all a picture needs.
constexpr uint32_t kViridis[] = {0x440154, 0x472c7a, 0x3b518b, 0x2c718e, 0x21908d,
                                 0x27ad81, 0x5cc863, 0xaadc32, 0xfde725};
constexpr uint32_t kMagma[] = {0x000004, 0x1c1044, 0x4f127b, 0x812581, 0xb5367a,
                               0xe55064, 0xfb8761, 0xfec287, 0xfcfdbf};
constexpr uint32_t kInferno[] = {0x000004, 0x1f0c48, 0x550f6d, 0x88226a, 0xba3655,
                                 0xe35933, 0xf98e09, 0xf9cb35, 0xfcffa4};
constexpr uint32_t kPlasma[] = {0x0d0887, 0x4c02a1, 0x7e03a8, 0xa92395, 0xcc4778,
                                0xe66c5c, 0xf89540, 0xfdc328, 0xf0f921};
constexpr uint32_t kCividis[] = {0x00224e, 0x1d3a6e, 0x48506c, 0x666870, 0x7f7c75,
                                 0x9a9377, 0xb8ac70, 0xd8c55e, 0xfee838};
constexpr uint32_t kTurbo[] = {0x30123b, 0x4145ab, 0x4675ed, 0x39a2fc, 0x1bcfd4,
                               0x24eca6, 0x61fc6c, 0xa4fc3b, 0xd1e834, 0xf3c63a,
                               0xfe9b2d, 0xf36315, 0xd93806, 0xb11901, 0x7a0403};
// Blue through a light neutral grey to red: symmetric in lightness so 0.5 reads as "no change".
constexpr uint32_t kCoolwarm[] = {0x3b4cc0, 0x6282ea, 0x8db0fe, 0xb8d0f9, 0xdddcdc,
                                  0xf5c4ad, 0xf49a7b, 0xde604d, 0xb40426};

std::span<const uint32_t> knots(Colormap map) {
    switch (map) {
        case Colormap::Viridis:
            return kViridis;
        case Colormap::Magma:
            return kMagma;
        case Colormap::Inferno:
            return kInferno;
        case Colormap::Plasma:
            return kPlasma;
        case Colormap::Cividis:
            return kCividis;
        case Colormap::Turbo:
            return kTurbo;
        case Colormap::Coolwarm:
            return kCoolwarm;
    }
    return kViridis;
}

uint8_t lerpChannel(uint32_t a, uint32_t b, int shift, float f) {
    const float x = static_cast<float>((a >> shift) & 0xff);
    const float y = static_cast<float>((b >> shift) & 0xff);
    return static_cast<uint8_t>(std::lround(x + (y - x) * f));
}

}  // namespace

Rgba8 sampleColormap(Colormap map, float t) {
    if (std::isnan(t)) return kMissingColor;
    const auto k = knots(map);
    const float pos = std::clamp(t, 0.0f, 1.0f) * static_cast<float>(k.size() - 1);
    const size_t i = std::min(static_cast<size_t>(pos), k.size() - 2);
    const float f = pos - static_cast<float>(i);
    return Rgba8{lerpChannel(k[i], k[i + 1], 16, f), lerpChannel(k[i], k[i + 1], 8, f),
                 lerpChannel(k[i], k[i + 1], 0, f), 255};
}

std::array<Rgba8, 256> colormapTable(Colormap map) {
    std::array<Rgba8, 256> table;
    for (size_t i = 0; i < table.size(); ++i)
        table[i] = sampleColormap(map, static_cast<float>(i) / 255.0f);
    return table;
}

std::string colormapName(Colormap map) {
    switch (map) {
        case Colormap::Viridis:
            return "viridis";
        case Colormap::Magma:
            return "magma";
        case Colormap::Inferno:
            return "inferno";
        case Colormap::Plasma:
            return "plasma";
        case Colormap::Cividis:
            return "cividis";
        case Colormap::Turbo:
            return "turbo";
        case Colormap::Coolwarm:
            return "coolwarm";
    }
    return "viridis";
}

std::optional<Colormap> colormapByName(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (Colormap map : allColormaps())
        if (colormapName(map) == lower) return map;
    return std::nullopt;
}

std::vector<Colormap> allColormaps() {
    return {Colormap::Viridis, Colormap::Magma, Colormap::Inferno, Colormap::Plasma,
            Colormap::Cividis, Colormap::Turbo, Colormap::Coolwarm};
}

}  // namespace sepal::color
