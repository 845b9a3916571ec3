// The CPU backend against the reference projector and the double-precision oracle on the hard
// cases: ties at k/k+1, duplicate landmarks, negative smoothing with adjust 2 on a free layout.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/embedsom/embedsom.h"
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
