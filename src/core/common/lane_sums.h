#pragma once
// The sum of eight SIMD lanes in one fixed order, so that a vector path and its portable twin
// (tsne_sums.cpp, tsne_attraction.cpp) give the same bits.

namespace sepal {

/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
inline float sumEightLanes(const float* l) {
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

}  // namespace sepal
