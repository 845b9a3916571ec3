#pragma once
// Local point density of a 2D embedding, for colouring by density.

#include <cstddef>
#include <vector>

namespace sepal::raster {

/// Density at each of n points (xy: n x 2 row-major): counts binned on a grid x grid histogram
/// over the points' bounding box, smoothed by a Gaussian of `bandwidth` bins, read back
/// bilinearly and divided by the largest value (so in [0, 1]). Non-finite points get NaN.
std::vector<float> pointDensity(const float* xy, size_t n, int grid = 256, float bandwidth = 2.0f);

}  // namespace sepal::raster
