#pragma once
// Which part of the 2D embedding a picture shows, and the mapping to pixels.

#include <cstddef>

namespace sepal::raster {

/// A data-space rectangle shown in a pixel rectangle with one scale on both axes.
struct Viewport {
    double centerX = 0.0;  ///< data x at the centre of the plot area
    double centerY = 0.0;  ///< data y at the centre of the plot area
    double scale = 1.0;    ///< pixels per data unit (both axes)
    int left = 0;          ///< plot area in pixels: first column
    int top = 0;           ///< plot area in pixels: first row
    int width = 1;         ///< plot area width in pixels
    int height = 1;        ///< plot area height in pixels

    /// Pixel column of data x (continuous; pixel centres at i + 0.5).
    double toPixelX(double x) const { return left + width * 0.5 + (x - centerX) * scale; }
    /// Pixel row of data y (y grows upward in data, downward in pixels).
    double toPixelY(double y) const { return top + height * 0.5 - (y - centerY) * scale; }
};

/// A box of the picture: [minX, maxX] x [minY, maxY].
struct Extent {
    double minX = -1.0, minY = -1.0, maxX = 1.0, maxY = 1.0;
};

/// The 0.5th to 99.5th percentiles of the finite points (n x 2, row-major) on each axis, from
/// an even sample of at most 100,000 of them, so that a few stray cells do not shrink a picture
/// into a corner (the lower index rounds down and the upper up, so that a handful of points are
/// all inside). False, leaving `extent` as it was, when no point is finite.
bool robustExtent(const float* xy, size_t n, Extent& extent);

/// Fits the finite points (n x 2, row-major) into the plot area (left, top, width, height) by
/// their robustExtent, leaving `margin` (a fraction of the area, per side) free; equal scale on
/// both axes so shapes are not distorted. With no finite point it shows [-1, 1]^2.
Viewport fitViewport(const float* xy, size_t n, int left, int top, int width, int height,
                     double margin = 0.05);

}  // namespace sepal::raster
