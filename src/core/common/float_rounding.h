#pragma once
// A double rounded to a float that stays on one side of it: the bounds that the exact searches
// compare against must not move inward when they are stored as floats.

#include <cmath>
#include <limits>

namespace sepal {

/// The largest float at or below x.
inline float floatDown(double x) {
    float f = float(x);
    if (double(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}

/// The smallest float at or above x.
inline float floatUp(double x) {
    float f = float(x);
    if (double(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

}  // namespace sepal
