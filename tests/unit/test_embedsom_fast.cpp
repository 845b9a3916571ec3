// The fast CPU projector against the reference, and its independence of the thread count.

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/embedsom/embedsom.h"
#include "embedsom_data.h"

namespace sepal {
namespace {

// Largest point distance between a and b (n x 2) over the extent of the model's 2D positions.
double relativeMaxError(const std::vector<float>& a, const std::vector<float>& b,
                        const LandmarkModel& m) {
    float lo = m.low[0], hi = m.low[0];
    for (float v : m.low) lo = std::min(lo, v), hi = std::max(hi, v);
    double worst = 0.0;
    for (size_t i = 0; i < a.size(); i += 2)
        worst = std::max(worst, std::hypot(double(a[i]) - b[i], double(a[i + 1]) - b[i + 1]));
    return worst / (hi - lo);
}

void expectAgreement(size_t n, size_t d, size_t g, int clusters, const EmbedParams& params) {
    const auto x = test::randomPoints(n, d, 100 + d + g, clusters);
    const auto model = test::gridModel(x, g, d);
    std::vector<float> ref(2 * n), fast(2 * n);
    makeReferenceProjector()->project(x.data(), n, d, model, params, ref.data());
    makeCpuProjector()->project(x.data(), n, d, model, params, fast.data());
    EXPECT_LE(relativeMaxError(fast, ref, model), 1e-4)
        << "n " << n << " d " << d << " g " << g << " clusters " << clusters;
}

TEST(EmbedsomFast, AgreesWithReferenceOnNormalData) {
    expectAgreement(2001, 7, 49, 0, {});
    expectAgreement(1003, 32, 256, 0, {.k = 16});
    expectAgreement(500, 3, 20, 0, {.k = 20, .smooth = -2.0f, .adjust = 0.5f});
}

TEST(EmbedsomFast, AgreesWithReferenceOnClusteredData) {
    expectAgreement(2000, 16, 100, 5, {});
    expectAgreement(1000, 40, 81, 9, {.k = 6, .smooth = 1.0f, .adjust = 2.0f});
}

TEST(EmbedsomFast, ManyLandmarksProjectLikeTheReference) {
    // Beyond 4096 landmarks the pair table is not built; the reference way is used instead.
    const size_t n = 40, d = 3, g = 4100;
    const auto x = test::randomPoints(g, d, 31, 6);
    const auto model = test::gridModel(x, g, d);
    std::vector<float> ref(2 * n), fast(2 * n);
    makeReferenceProjector()->project(x.data(), n, d, model, {}, ref.data());
    makeCpuProjector()->project(x.data(), n, d, model, {}, fast.data());
    EXPECT_EQ(ref, fast);
}

TEST(EmbedsomFast, ResultsDoNotDependOnTheThreadCount) {
    const size_t n = 1237, d = 9, g = 64;
    const auto x = test::randomPoints(n, d, 7, 4);
    const auto model = test::gridModel(x, g, d);
    const int before = omp_get_max_threads();
    std::vector<float> one(2 * n), two(2 * n);
    omp_set_num_threads(1);
    makeCpuProjector()->project(x.data(), n, d, model, {}, one.data());
    omp_set_num_threads(2);
    makeCpuProjector()->project(x.data(), n, d, model, {}, two.data());
    omp_set_num_threads(before);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)), 0);
}

TEST(EmbedsomFast, FollowsModelEditsBetweenCalls) {
    const size_t n = 300, d = 5, g = 25;
    const auto x = test::randomPoints(n, d, 9);
    auto model = test::gridModel(x, g, d);
    auto fast = makeCpuProjector();
    std::vector<float> before(2 * n), after(2 * n), ref(2 * n);
    fast->project(x.data(), n, d, model, {}, before.data());
    // An edit without touch(): the cached pair constants must still notice it.
    model.low[0] += 3.0f;
    fast->project(x.data(), n, d, model, {}, after.data());
    makeReferenceProjector()->project(x.data(), n, d, model, {}, ref.data());
    EXPECT_NE(before, after);
    EXPECT_LE(relativeMaxError(after, ref, model), 1e-4);
}

}  // namespace
}  // namespace sepal
