// groupLandmarks (core/knn/landmark_groups.h), the grouping the CPU's Lloyd assigner and the GPU's
// pruned nearest pass skip whole groups by: a permutation whose runs of `block` are groups of
// nearby landmarks, the same for the same landmarks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "core/knn/landmark_groups.h"

namespace sepal {
namespace {

/// g landmarks of d coordinates in `clusters` tight clusters far apart, in shuffled order.
std::vector<float> clusteredLandmarks(size_t g, size_t d, size_t clusters, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centres(clusters * d);
    for (float& c : centres) c = 100.0f * normal(rng);
    std::vector<float> l(g * d);
    for (size_t j = 0; j < g; ++j) {
        const size_t c = (j * 7) % clusters;
        for (size_t t = 0; t < d; ++t) l[j * d + t] = centres[c * d + t] + normal(rng);
    }
    return l;
}

TEST(LandmarkGroups, EveryLandmarkOnceAndTheSameOrderAgain) {
    for (size_t g : {1, 31, 32, 33, 100, 256, 1000}) {
        SCOPED_TRACE(g);
        const auto l = clusteredLandmarks(g, 8, 5, 11);
        const auto order = groupLandmarks(l.data(), g, 8, 32);
        ASSERT_EQ(order.size(), g);
        std::vector<uint32_t> sorted(order);
        std::sort(sorted.begin(), sorted.end());
        for (size_t j = 0; j < g; ++j) ASSERT_EQ(sorted[j], j);
        EXPECT_EQ(groupLandmarks(l.data(), g, 8, 32), order);
    }
}

/// The largest distance from the mean of landmarks order[first, last) to one of them.
double radiusOf(const std::vector<float>& l, size_t d, const std::vector<uint32_t>& order,
                size_t first, size_t last) {
    std::vector<double> centre(d, 0.0);
    for (size_t s = first; s < last; ++s)
        for (size_t t = 0; t < d; ++t)
            centre[t] += l[size_t(order[s]) * d + t] / double(last - first);
    double radius = 0.0;
    for (size_t s = first; s < last; ++s) {
        double sq = 0.0;
        for (size_t t = 0; t < d; ++t) {
            const double e = l[size_t(order[s]) * d + t] - centre[t];
            sq += e * e;
        }
        radius = std::max(radius, std::sqrt(sq));
    }
    return radius;
}

// 32 clusters of 32 landmarks each (radius about 6), hundreds apart. The halving splits at
// medians, so a split may cut a cluster whose projection meets another's; most blocks still hold
// one cluster (26 of 32 here; blocks of landmarks in index order would hold none).
TEST(LandmarkGroups, BlocksHoldNearbyLandmarks) {
    const size_t g = 1024, d = 16, clusters = 32, block = 32;
    const auto l = clusteredLandmarks(g, d, clusters, 12);
    const auto order = groupLandmarks(l.data(), g, d, block);
    size_t tight = 0;
    for (size_t b = 0; b < g / block; ++b)
        tight += radiusOf(l, d, order, b * block, (b + 1) * block) < 20.0;
    EXPECT_GE(tight, 3 * g / block / 4) << "most blocks should hold one cluster";
}

TEST(LandmarkGroups, EqualAndNonFiniteLandmarksStillGroup) {
    const size_t g = 100, d = 4;
    std::vector<float> l(g * d, 1.0f);  // all equal: no axis to split along
    l[7 * d] = std::numeric_limits<float>::quiet_NaN();
    const auto order = groupLandmarks(l.data(), g, d, 32);
    std::vector<uint32_t> sorted(order);
    std::sort(sorted.begin(), sorted.end());
    std::vector<uint32_t> every(g);
    std::iota(every.begin(), every.end(), 0u);
    EXPECT_EQ(sorted, every);
}

}  // namespace
}  // namespace sepal
