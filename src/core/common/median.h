#pragma once
// The median of a sample, in place.

#include <algorithm>
#include <cmath>
#include <vector>

namespace sepal {

/// The median of v (v is reordered): the middle value, or the mean of the two middle ones; NaN
/// when v is empty.
inline float medianOf(std::vector<float>& v) {
    if (v.empty()) return NAN;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + long(mid), v.end());
    float m = v[mid];
    if (v.size() % 2 == 0) m = 0.5f * (m + *std::max_element(v.begin(), v.begin() + long(mid)));
    return m + 0.0f;  // -0 and 0 are equal: which one lands in the middle depends on the order
}

}  // namespace sepal
