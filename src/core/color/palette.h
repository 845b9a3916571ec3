#pragma once
// A qualitative palette for labels (populations, samples): many colours that stay distinguishable.

#include <cstddef>

#include "core/color/rgba.h"

namespace sepal::color {

/// Number of distinct colours before the palette repeats with a lighter and a darker variant.
inline constexpr size_t kPaletteSize = 24;

/// Colour of category i (i >= kPaletteSize cycles through shaded variants of the same hues).
Rgba8 paletteColor(size_t i);

/// Perceptual distance of two colours (Euclidean in OKLab, 0 = equal, about 1 = black to white).
float perceptualDistance(Rgba8 a, Rgba8 b);

}  // namespace sepal::color
