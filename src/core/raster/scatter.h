#pragma once
// Density-aware point splatting: many points per pixel average their colours instead of the last
// one drawn winning, and opacity grows with the logarithm of the count so dense regions keep
// their structure instead of saturating.

#include <cstddef>

#include "core/color/rgba.h"
#include "core/raster/image.h"
#include "core/raster/viewport.h"

namespace sepal::raster {

/// How points are drawn.
struct ScatterOptions {
    float pointRadius = 0.0f;  ///< splat radius in pixels; 0 picks one from the point density
    float minOpacity = 0.5f;   ///< opacity of a pixel covered by a single point
    /// Per-pixel count (in points) that reaches full opacity; 0 takes the 99th percentile of the
    /// covered pixels' counts, so the tone mapping follows the data.
    float saturationCount = 0.0f;
};

/// The radius ScatterOptions{} uses for n points in a plot area of width x height pixels.
float autoPointRadius(size_t n, int width, int height);

/// Draws n points (xy: n x 2 row-major, data space) over `image` through `view`. colors holds n
/// colours, or one colour for all points when colorCount == 1. Non-finite points are skipped.
/// Points outside the plot area are clipped to it.
void drawPoints(Image& image, const Viewport& view, const float* xy, size_t n,
                const color::Rgba8* colors, size_t colorCount, const ScatterOptions& options = {});

}  // namespace sepal::raster
