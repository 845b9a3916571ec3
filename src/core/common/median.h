#pragma once
// The median of a sample, in place.

#include <algorithm>
#include <cmath>
#include <vector>

namespace sepal {

/// The median of the values [begin, end) (reordered): the middle value, or the mean of the two
/// middle ones; NaN when there are none.
inline float medianOf(float* begin, float* end) {
    if (begin == end) return NAN;
    const size_t size = size_t(end - begin), mid = size / 2;
    std::nth_element(begin, begin + mid, end);
    float m = begin[mid];
    if (size % 2 == 0) m = 0.5f * (m + *std::max_element(begin, begin + mid));
    return m + 0.0f;  // -0 and 0 are equal: which one lands in the middle depends on the order
}

/// The median of v (v is reordered), as medianOf(begin, end).
inline float medianOf(std::vector<float>& v) {
    return medianOf(v.data(), v.data() + v.size());
}

}  // namespace sepal
