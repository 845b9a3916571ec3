#pragma once
// Antialiased round shapes for figures: dots and line segments, blended by their coverage.

#include "core/color/rgba.h"
#include "core/raster/image.h"

namespace sepal::raster {

/// A filled disc of radius r centred at (cx, cy) (pixel centres at half-integers: pixel (x, y)
/// covers [x, x + 1) x [y, y + 1)), its rim antialiased over one pixel.
void fillDisc(Image& image, double cx, double cy, double r, color::Rgba8 color);

/// A line segment from (x0, y0) to (x1, y1), `width` pixels thick with round ends, antialiased.
void drawSegment(Image& image, double x0, double y0, double x1, double y1, double width,
                 color::Rgba8 color);

}  // namespace sepal::raster
