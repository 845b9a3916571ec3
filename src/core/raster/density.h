#pragma once
// Point density of a 2D embedding, for colouring by density: the app's canvas and sepal-cli's
// pictures take it from here, so both show the same colours.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal::raster {

/// Bins of the density grid along each axis.
inline constexpr int kDensityGrid = 256;

/// Each point's log(1 + the count of its bin) on a kDensityGrid x kDensityGrid histogram over
/// the points' bounding box (no wider than their robust extent and a margin: a stray cell far
/// out is alone in a bin of the same size beyond the grid), counting only the points `counted`
/// keeps (empty: all; else one flag per point); NaN for a point with a non-finite position. top
/// receives log(1 + the largest count): the colour scale's top (0 when nothing was counted). A log
/// scale, because cells pile up: one spot may hold most of a file and a linear scale leaves the
/// rest dark.
std::vector<float> binnedLogDensity(const float* xy, size_t n, const std::vector<uint8_t>& counted,
                                    float& top);

}  // namespace sepal::raster
