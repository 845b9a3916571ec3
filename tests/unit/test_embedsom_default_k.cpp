// The default k (params.k = 0) for small models, and the smooth limits every backend shares
// through validateParams and resolveK (the CUDA backend asks the same functions).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "embedsom_data.h"

namespace sepal {
namespace {

TEST(EmbedsomDefaultK, FourToEightLandmarksTakeKFour) {
    // floor(1 + sqrt(g)) is 3 for g = 4..8, below the smallest k the spec allows: the default is
    // raised to 4 (= g at g = 4), and the parameters are valid.
    for (size_t g = 4; g <= 8; ++g) {
        EXPECT_EQ(std::floor(1.0 + std::sqrt(double(g))), 3.0) << g;
        EXPECT_EQ(resolveK({}, g), 4) << "g = " << g;
        EXPECT_NO_THROW(validateParams({}, g)) << "g = " << g;
    }
    // From g = 9 the formula itself gives at least 4.
    EXPECT_EQ(resolveK({}, 9), 4);
    EXPECT_EQ(resolveK({}, 15), 4);
    EXPECT_EQ(resolveK({}, 16), 5);
}

TEST(EmbedsomDefaultK, TheCpuProjectorsUseKFourForFourToEightLandmarks) {
    const size_t n = 200, d = 6;
    const auto x = test::randomPoints(n, d, 17, 3);
    for (size_t g = 4; g <= 8; ++g) {
        const LandmarkModel model = test::gridModel(x, g, d);
        EmbedParams defaults, four;
        four.k = 4;
        for (auto make : {makeCpuProjector, makeReferenceProjector}) {
            auto projector = make();
            std::vector<float> a(n * 2, NAN), b(n * 2, NAN);
            projector->project(x.data(), n, d, model, defaults, a.data());
            projector->project(x.data(), n, d, model, four, b.data());
            EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
                << projector->name() << ", g = " << g;
            for (float v : a) ASSERT_TRUE(std::isfinite(v)) << projector->name() << ", g = " << g;
        }
    }
}

TEST(EmbedsomDefaultK, InfiniteSmoothIsRefused) {
    const float inf = std::numeric_limits<float>::infinity();
    for (float smooth : {inf, -inf}) {
        EmbedParams p;
        p.smooth = smooth;
        try {
            validateParams(p, 50);
            ADD_FAILURE() << "smooth = " << smooth << " was accepted";
        } catch (const InputError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("smooth = "), std::string::npos) << m;
            EXPECT_NE(m.find("finite"), std::string::npos) << m;
        }
        const auto x = test::randomPoints(20, 3, 2);
        const LandmarkModel model = test::gridModel(x, 9, 3);
        std::vector<float> y(40);
        EXPECT_THROW(makeCpuProjector()->project(x.data(), 20, 3, model, p, y.data()), InputError);
    }
}

}  // namespace
}  // namespace sepal
