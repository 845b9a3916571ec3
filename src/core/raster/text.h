#pragma once
// Plain ASCII labels in pictures (legend names, colour-bar numbers) from stb_easy_font's quads,
// rasterised here: no font files needed.

#include <string>

#include "core/color/rgba.h"
#include "core/raster/image.h"

namespace sepal::raster {

/// Width in pixels of `text` drawn at integer `scale` (1 = the font's own 7-pixel glyphs).
int textWidth(const std::string& text, int scale = 1);
/// Height in pixels of one line of text at `scale`.
int textHeight(int scale = 1);
/// Draws `text` with its top-left corner at (x, y); characters outside ASCII 32..126 show as '?'.
void drawText(Image& image, int x, int y, const std::string& text, color::Rgba8 color,
              int scale = 1);

}  // namespace sepal::raster
