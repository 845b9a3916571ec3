#pragma once
// A whole picture of an embedding: the points, coloured one way, with a colour bar or legend.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/color/colormap.h"
#include "core/color/rgba.h"
#include "core/raster/image.h"
#include "core/raster/scatter.h"

namespace sepal::raster {

/// How points are coloured.
enum class ColorBy {
    Uniform,  ///< one colour, no annotation
    Values,   ///< a marker's values through a colour map, with a colour bar
    Labels,   ///< categories through the qualitative palette, with a legend
    Density,  ///< local density of the embedding, with a colour bar
};

/// What to draw and how.
struct PictureSpec {
    int width = 1000;                     ///< picture width in pixels
    int height = 1000;                    ///< picture height in pixels
    ColorBy colorBy = ColorBy::Density;   ///< colouring
    std::string title;                    ///< marker or label column name, above the bar/legend
    std::vector<float> values;            ///< ColorBy::Values: one value per point
    std::vector<int32_t> codes;           ///< ColorBy::Labels: per point, -1 = missing
    std::vector<std::string> categories;  ///< ColorBy::Labels: name of each code
    color::Colormap map = color::Colormap::Viridis;  ///< Values and Density
    double loPercent = 1.0;                          ///< Values: lower clipping percentile
    double hiPercent = 99.0;                         ///< Values: upper clipping percentile
    color::Rgba8 background{255, 255, 255, 255};     ///< behind everything
    color::Rgba8 foreground{40, 40, 40, 255};        ///< text, frames and Uniform points
    ScatterOptions scatter;                          ///< point size and tone mapping
};

/// Renders n points (xy: n x 2 row-major) per `spec`; throws InputError when the spec's values
/// or codes do not have one entry per point or the size is not positive.
Image renderPicture(const float* xy, size_t n, const PictureSpec& spec);

}  // namespace sepal::raster
