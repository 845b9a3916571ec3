#pragma once
// Continuous colour maps (perceptual sequential ones and one diverging) sampled from short
// control-point tables with linear interpolation in sRGB; free of GL so the GUI shares them.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/color/rgba.h"

namespace sepal::color {

/// The continuous colour maps Sepal offers.
enum class Colormap { Viridis, Magma, Inferno, Plasma, Cividis, Turbo, Coolwarm };

/// Colour at t in [0, 1] (clamped; NaN gives kMissingColor).
Rgba8 sampleColormap(Colormap map, float t);
/// 256 samples from t = 0 to t = 1, for lookup textures and fast per-point mapping.
std::array<Rgba8, 256> colormapTable(Colormap map);
/// Lower-case name ("viridis", "coolwarm", ...).
std::string colormapName(Colormap map);
/// The map called `name` (case-insensitive), or nothing.
std::optional<Colormap> colormapByName(const std::string& name);
/// Every map, in menu order.
std::vector<Colormap> allColormaps();

}  // namespace sepal::color
