#pragma once
// An RGBA picture in memory, the canvas of the software renderer.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/color/rgba.h"

namespace sepal::raster {

/// width x height pixels, RGBA8 straight alpha, rows top to bottom.
struct Image {
    int width = 0;                ///< pixels per row
    int height = 0;               ///< rows
    std::vector<uint8_t> pixels;  ///< width * height * 4 bytes: R, G, B, A

    Image() = default;
    /// A width x height image filled with `fill`.
    Image(int w, int h, color::Rgba8 fill);
    /// True when (x, y) lies inside the image.
    bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < width && y < height; }
    /// Colour of pixel (x, y); (x, y) must lie inside.
    color::Rgba8 at(int x, int y) const;
    /// Overwrites pixel (x, y) when inside.
    void set(int x, int y, color::Rgba8 c);
    /// Draws c over pixel (x, y) with opacity c.a * coverage (coverage in [0, 1]), when inside.
    void blend(int x, int y, color::Rgba8 c, float coverage = 1.0f);
    /// Fills the rectangle [x0, x1) x [y0, y1), clipped to the image, blending by c.a.
    void fillRect(int x0, int y0, int x1, int y1, color::Rgba8 c);
};

}  // namespace sepal::raster
