#pragma once
// What makes a picture readable on its own: a colour bar for values, a legend for labels.

#include <string>
#include <utility>
#include <vector>

#include "core/color/colormap.h"
#include "core/color/rgba.h"
#include "core/color/value_map.h"
#include "core/raster/image.h"

namespace sepal::raster {

/// A vertical colour bar of `barWidth` x `barHeight` pixels at (x, y) (top-left of the title):
/// `title` above it, the range's hi value at its top and lo value at its bottom, to its right;
/// `reversed` runs the map from its high end at the bottom. Returns the width used, in pixels.
int drawColorBar(Image& image, int x, int y, int barWidth, int barHeight, color::Colormap map,
                 color::ValueRange range, const std::string& title, color::Rgba8 textColor,
                 int textScale = 1, bool reversed = false);

/// A legend at (x, y): `title`, then one row per entry (a colour swatch and the name). Rows that
/// do not fit above `maxHeight` pixels are summarised as "+N more"; names wider than `maxWidth`
/// (0: no limit) are shortened by fitNames, the title by elideMiddle. Returns the height used.
int drawLegend(Image& image, int x, int y, int maxHeight,
               const std::vector<std::pair<std::string, color::Rgba8>>& entries,
               const std::string& title, color::Rgba8 textColor, int textScale = 1,
               int maxWidth = 0);

/// The width drawLegend uses for these entries and title without a width limit.
int legendWidth(const std::vector<std::pair<std::string, color::Rgba8>>& entries,
                const std::string& title, int textScale = 1);

/// A legend's text scale and width within two fifths of a picture `pictureWidth` wide (the
/// points keep the rest): `textScale`, or a step smaller when that fits better, and no wider
/// than the limit (drawLegend's maxWidth then shortens the names).
struct LegendFit {
    int scale = 1;
    int width = 0;
};
LegendFit fitLegend(const std::vector<std::pair<std::string, color::Rgba8>>& entries,
                    const std::string& title, int textScale, int pictureWidth);

/// `text` within `width` pixels at `textScale` (sepal::elideMiddle, with the picture's font and
/// its ellipsis).
std::string elideMiddle(const std::string& text, int width, int textScale = 1);

/// Names of a legend, each within `width` pixels at `textScale` (or the ellipsis alone when not
/// even that fits): a name that fits stays whole; one that does not first loses what all the too
/// wide names end with, then what they all begin with (each cut at a word boundary: space, '_',
/// '-' or '.'), to ellipses, and only then its middle ("Gates_PTLG021_Unstim_Control_2_suffix"
/// -> "Gates_PTLG021_Unstim_Control_2…"). What tells names apart survives when it lies past their
/// shared start; names that differ only deep in their middles may still meet in a narrow room.
std::vector<std::string> fitNames(const std::vector<std::string>& names, int width,
                                  int textScale = 1);

/// The height drawLegend uses for `entries` rows under `maxHeight`, so that a legend can be
/// placed by its bottom edge.
int legendHeight(size_t entries, int maxHeight, int textScale = 1);

/// The height drawColorBar uses for a bar of `barHeight` pixels (title included).
int colorBarHeight(int barHeight, int textScale = 1);

/// The text scale of a picture's key for an image of `width` x `height` pixels: the 7-pixel
/// glyphs grow with its smaller side (21 px at 1200, 49 px at 3000), so a key stays legible at
/// any export size, and a tall narrow picture's legend keeps its names whole (by the height, a
/// 600 x 1800 picture cut them to "Mem... T" twice).
int textScaleFor(int width, int height);

/// A number for a label: 3 significant digits, no trailing noise ("0.125", "1.2e+04").
std::string formatTick(double value);

/// About `target` round ticks (steps of 1, 2, 2.5 or 5 times a power of ten) from at or below
/// `lo` to at or above `hi`, the first and last enclosing the range; a flat range is widened
/// around its value. Empty when lo or hi is not finite.
std::vector<double> niceTicks(double lo, double hi, int target = 4);

}  // namespace sepal::raster
