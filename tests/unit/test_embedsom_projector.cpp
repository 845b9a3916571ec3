// Behaviour both CPU projectors share: edge cases of embedsom.md and agreement with each other.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "embedsom_data.h"

namespace sepal {
namespace {

using Factory = std::unique_ptr<Projector> (*)();

class BothProjectors : public ::testing::TestWithParam<Factory> {};

bool allFiniteValues(const std::vector<float>& v) {
    for (float f : v)
        if (!std::isfinite(f)) return false;
    return true;
}

TEST_P(BothProjectors, NoPointsAndOnePoint) {
    auto p = GetParam()();
    const auto x = test::randomPoints(50, 5, 1);
    const auto model = test::gridModel(x, 25, 5);
    EXPECT_EQ(p->project(nullptr, 0, 5, model, {}, nullptr).nonFinitePoints, 0u);
    std::vector<float> y(2, std::nanf(""));
    const auto r = p->project(x.data() + 30 * 5, 1, 5, model, {}, y.data());
    EXPECT_TRUE(allFiniteValues(y));
    EXPECT_EQ(r.nonFinitePoints + r.degeneratePoints, 0u);
    // Within the landmarks' 2D range (a 5 x 5 grid).
    EXPECT_GE(y[0], -0.5f);
    EXPECT_LE(y[0], 4.5f);
}

TEST_P(BothProjectors, RejectsBadParametersAndShapes) {
    auto p = GetParam()();
    const auto x = test::randomPoints(20, 3, 2);
    const auto model = test::gridModel(x, 9, 3);
    std::vector<float> y(40);
    EXPECT_THROW(p->project(x.data(), 20, 3, model, {.k = 10}, y.data()), InputError);
    EXPECT_THROW(p->project(x.data(), 20, 3, model, {.smooth = -4.0f}, y.data()), InputError);
    EXPECT_THROW(p->project(x.data(), 20, 4, model, {}, y.data()), InputError);
}

TEST_P(BothProjectors, KEqualsGIsFinite) {
    auto p = GetParam()();
    const auto x = test::randomPoints(300, 6, 3);
    const auto model = test::gridModel(x, 16, 6);
    std::vector<float> y(600);
    p->project(x.data(), 300, 6, model, {.k = 16}, y.data());
    EXPECT_TRUE(allFiniteValues(y));
}

TEST_P(BothProjectors, NonFiniteInputsAreCountedAndPlacedFinite) {
    auto p = GetParam()();
    auto x = test::randomPoints(40, 4, 4);
    const auto model = test::gridModel(x, 16, 4);
    const float inf = std::numeric_limits<float>::infinity();
    x[20 * 4 + 1] = std::nanf("");
    x[21 * 4 + 0] = inf;
    x[22 * 4 + 3] = -inf;
    for (int t = 0; t < 4; ++t) x[23 * 4 + t] = std::nanf("");
    std::vector<float> y(80);
    const auto r = p->project(x.data(), 40, 4, model, {}, y.data());
    EXPECT_EQ(r.nonFinitePoints, 4u);
    EXPECT_TRUE(allFiniteValues(y));
    // No finite coordinate at all: the landmarks' centroid (a 4 x 4 grid: 1.5, 1.5).
    EXPECT_FLOAT_EQ(y[46], 1.5f);
    EXPECT_FLOAT_EQ(y[47], 1.5f);
}

TEST_P(BothProjectors, DuplicatesAndEquidistantPointsAreFinite) {
    auto p = GetParam()();
    LandmarkModel m;
    m.resize(6, 2);
    // Five landmarks at one spot and one elsewhere: a point on the spot has k + 1 = 5
    // zero distances; the origin is equidistant from the four unit landmarks.
    const float high[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 5};
    std::memcpy(m.high.data(), high, sizeof high);
    for (size_t j = 0; j < 6; ++j) m.low[2 * j] = float(j), m.low[2 * j + 1] = float(j % 2);
    m.touch();
    const float x[] = {1, 1, 3, 3};
    float y[4];
    const auto r = p->project(x, 2, 2, m, {.k = 4}, y);
    for (float v : y) EXPECT_TRUE(std::isfinite(v));
    EXPECT_GE(r.degeneratePoints, 1u);

    LandmarkModel sq;
    sq.resize(4, 2);
    const float corners[] = {1, 0, 0, 1, -1, 0, 0, -1};
    std::memcpy(sq.high.data(), corners, sizeof corners);
    for (size_t j = 0; j < 4; ++j) sq.low[2 * j] = float(j), sq.low[2 * j + 1] = 0.0f;
    sq.touch();
    const float origin[] = {0, 0};
    const auto r2 = p->project(origin, 1, 2, sq, {.k = 4}, y);
    EXPECT_TRUE(std::isfinite(y[0]) && std::isfinite(y[1]));
    EXPECT_EQ(r2.degeneratePoints, 1u);
    EXPECT_FLOAT_EQ(y[0], 1.5f);
}

INSTANTIATE_TEST_SUITE_P(Cpu, BothProjectors,
                         ::testing::Values(&makeReferenceProjector, &makeCpuProjector),
                         [](const auto& info) {
                             return std::string(info.index == 0 ? "Reference" : "Fast");
                         });

}  // namespace
}  // namespace sepal
