#pragma once
// From numbers to colours: robust ranges by percentile clipping, then a colour map lookup.

#include <cstddef>
#include <vector>

#include "core/color/colormap.h"
#include "core/color/rgba.h"

namespace sepal::color {

/// The values mapped to the two ends of a colour map.
struct ValueRange {
    float lo = 0.0f;  ///< value shown at t = 0
    float hi = 1.0f;  ///< value shown at t = 1
};

/// Range between the loPercent and hiPercent percentiles (0..100) of the finite values among n
/// values read with `stride` floats between them (so one column of a row-major matrix can be
/// passed). Ignores NaN and infinity; {0, 1} when no value is finite; widens a flat range.
ValueRange percentileRange(const float* values, size_t n, size_t stride = 1, double loPercent = 1.0,
                           double hiPercent = 99.0);

/// Position of v in the range, clamped to [0, 1]; NaN for non-finite v.
float normalize(float v, ValueRange range);

/// Colours of n values (stride as above): clipped to range, then looked up in `map`;
/// non-finite values get kMissingColor.
std::vector<Rgba8> mapValues(const float* values, size_t n, size_t stride, ValueRange range,
                             Colormap map);

}  // namespace sepal::color
