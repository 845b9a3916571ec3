#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/common/error.h"
#include "core/transform/logicle.h"

namespace sepal {

namespace {
std::vector<double> grid() {
    std::vector<double> xs;
    for (double x = -5000; x <= 300000; x += (std::abs(x) < 100 ? 0.37 : std::abs(x) * 0.01))
        xs.push_back(x);
    return xs;
}
}  // namespace

TEST(Logicle, ZeroSitsAtWidthOverDecades) {
    EXPECT_NEAR(Logicle({}).scale(0.0), 0.5 / 4.5, 1e-15);
    EXPECT_NEAR(Logicle({262144, 0.5, 4.5, 1.0}).scale(0.0), 1.5 / 5.5, 1e-15);
    EXPECT_NEAR(Logicle({10000, 1.0, 4.0, 0.0}).zero(), 0.25, 1e-15);
    // Values next to zero stay next to zero's position (no cancellation noise).
    const Logicle l({});
    EXPECT_GT(l.scale(1e-6), l.zero());
    EXPECT_LT(l.scale(-1e-6), l.zero());
}

TEST(Logicle, TopOfScaleIsOneAndDecadesAreEvenlySpaced) {
    for (const LogicleParams p : {LogicleParams{}, LogicleParams{10000, 1.0, 4.0, 0.5},
                                  LogicleParams{262144, 0.0, 4.5, 0.0}}) {
        const Logicle l(p);
        EXPECT_NEAR(l.scale(p.T), 1.0, 1e-12);
        // Far above the linear region the scale is logarithmic: one decade is 1 / (M + A).
        EXPECT_NEAR(l.scale(1e4 * p.T) - l.scale(1e3 * p.T), 1.0 / (p.M + p.A), 1e-4);
    }
}

TEST(Logicle, IsMonotoneOddAndInverts) {
    const Logicle l({});
    double previous = -1e300;
    for (double x : grid()) {
        const double y = l.scale(x);
        ASSERT_GT(y, previous) << "at " << x;
        previous = y;
        EXPECT_NEAR(l.scale(-x), 2 * l.zero() - y, 1e-12) << "at " << x;
        EXPECT_NEAR(l.inverse(y), x, 1e-9 * std::max(1.0, std::abs(x))) << "at " << x;
    }
    for (double y = -0.2; y <= 1.2; y += 0.013) EXPECT_NEAR(l.scale(l.inverse(y)), y, 1e-12);
    EXPECT_TRUE(std::isnan(l.scale(NAN)));
}

TEST(Logicle, RejectsInvalidParametersByName) {
    auto message = [](LogicleParams p) -> std::string {
        try {
            Logicle l(p);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(message({0, 0.5, 4.5, 0}).find("parameter T"), std::string::npos);
    EXPECT_NE(message({262144, 3, 4.5, 0}).find("parameter W"), std::string::npos);
    EXPECT_NE(message({262144, 0.5, -1, 0}).find("parameter M"), std::string::npos);
    EXPECT_NE(message({262144, 0.5, 4.5, -1}).find("parameter A"), std::string::npos);
}

}  // namespace sepal
