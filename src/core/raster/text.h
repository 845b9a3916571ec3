#pragma once
// Labels in exported pictures (heatmap names, legends, colour-bar numbers, axes): DejaVu Sans
// (Debian's fonts-dejavu-core, the app's own font) rasterised by stb_truetype, antialiased and
// UTF-8; without the font file, stb_easy_font's built-in pixel glyphs (ASCII).

#include <string>

#include "core/color/rgba.h"
#include "core/raster/image.h"

namespace sepal::raster {

/// True when the real font was found (else the pixel glyphs draw).
bool textHasFont();
/// Width in pixels of `text` drawn at integer `scale` (1 = a 12-pixel line).
int textWidth(const std::string& text, int scale = 1);
/// Height in pixels of one line of text at `scale`.
int textHeight(int scale = 1);
/// Draws `text` with its top-left corner at (x, y); with the pixel glyphs, characters outside
/// ASCII 32..126 show as '?'.
void drawText(Image& image, int x, int y, const std::string& text, color::Rgba8 color,
              int scale = 1);
/// Draws `text` turned a quarter left, reading upwards: it starts at row `bottom` and climbs
/// textWidth pixels, its glyphs' tops facing left, over textHeight + 2 columns from x.
void drawTextUpwards(Image& image, int x, int bottom, const std::string& text, color::Rgba8 color,
                     int scale = 1);

}  // namespace sepal::raster
