// The CPU backend against the reference projector and the double-precision oracle on the hard
// cases: ties at k/k+1, duplicate landmarks, negative smoothing with adjust 2 on a free layout,
// landmarks crowding as training leaves them.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/embedsom/embedsom.h"
#include "core/embedsom/exactness.h"
#include "embedsom_hard_cases.h"

namespace sepal::test {
namespace {

/// Points whose k-th and (k+1)-th smallest squared distances (float, reference form) are equal.
size_t tiesAtK(const HardCase& hc, int k) {
    const size_t g = hc.model.count(), d = hc.d;
    size_t ties = 0;
    std::vector<float> a(g);
    for (size_t i = 0; i < hc.n; ++i) {
        for (size_t j = 0; j < g; ++j) {
            float s = 0.0f;
            for (size_t t = 0; t < d; ++t) {
                const float e = hc.x[i * d + t] - hc.model.high[j * d + t];
                s += e * e;
            }
            a[j] = s;
        }
        std::nth_element(a.begin(), a.begin() + k, a.end());
        const float next = a[k];
        const float kth = *std::max_element(a.begin(), a.begin() + k);
        ties += kth == next;
    }
    return ties;
}

TEST(EmbedsomHardCases, TheTiesCasesTieAtTheBoundaryForMostPoints) {
    for (const HardCase& hc : hardCases()) {
        if (hc.name.rfind("ties_at_k", 0) != 0) continue;
        EXPECT_GT(tiesAtK(hc, hc.params.k), hc.n * 9 / 10) << hc.name;
    }
}

/// Points for which some pair of their k nearest landmarks (reference distances; the pairs of
/// the projection's loop) has a_v c_uv above kExactRatio: the O(1) form of D would lose digits.
size_t exactFormPoints(const HardCase& hc) {
    const size_t g = hc.model.count(), d = hc.d, k = size_t(hc.params.k);
    const auto distance = [&](const float* p, const float* q) {
        float s = 0.0f;
        for (size_t t = 0; t < d; ++t) s += (p[t] - q[t]) * (p[t] - q[t]);
        return s;
    };
    size_t points = 0;
    std::vector<std::pair<float, size_t>> a(g);
    for (size_t i = 0; i < hc.n; ++i) {
        for (size_t j = 0; j < g; ++j) a[j] = {distance(&hc.x[i * d], &hc.model.high[j * d]), j};
        std::partial_sort(a.begin(), a.begin() + long(k + 1), a.end());
        bool exact = false;
        for (size_t u = 0; u < k && !exact; ++u)
            for (size_t v = u + 1; v < k && !exact; ++v) {
                const float sqd =
                    distance(&hc.model.high[a[u].second * d], &hc.model.high[a[v].second * d]);
                exact = sqd > 0.0f && a[v].first / (2.0f * sqd) > kExactRatio;
            }
        points += exact;
    }
    return points;
}

TEST(EmbedsomHardCases, TheCrowdedCasesNeedMoreThanTheFastFormForMostPoints) {
    int crowded = 0;
    for (const HardCase& hc : hardCases()) {
        if (hc.name.rfind("crowded_", 0) != 0) continue;
        ++crowded;
        EXPECT_GT(exactFormPoints(hc), hc.n * 9 / 10) << hc.name;
    }
    EXPECT_EQ(crowded, 3);
}

TEST(EmbedsomHardCases, CpuBackendMatchesTheReferenceWithinTheSpecsTolerance) {
    for (const HardCase& hc : hardCases()) {
        std::vector<float> ref(hc.n * 2), cpu(hc.n * 2);
        makeReferenceProjector()->project(hc.x.data(), hc.n, hc.d, hc.model, hc.params, ref.data());
        makeCpuProjector()->project(hc.x.data(), hc.n, hc.d, hc.model, hc.params, cpu.data());
        const double extent = extentOf(hc.model.low);
        const auto err = pointErrors(cpu, ref);
        EXPECT_LE(err.back(), 1e-4 * extent) << hc.name;
        EXPECT_LE(err[err.size() / 2], 1e-5 * extent) << hc.name;
        // The oracle computes in double: float roundings move ill-conditioned points by up to
        // about 1e-2 of the extent, a neighbour taken in the wrong order by far more.
        const auto oracle = hostEmbedSom(hc.x, hc.n, hc.d, hc.model, hc.params);
        const auto errOracle = pointErrors(cpu, oracle);
        EXPECT_LE(errOracle.back(), 1e-2 * extent) << hc.name;
        EXPECT_LE(errOracle[errOracle.size() / 2], 1e-4 * extent) << hc.name;
    }
}

}  // namespace
}  // namespace sepal::test
