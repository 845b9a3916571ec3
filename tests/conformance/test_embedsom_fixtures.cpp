// Every EmbedSOM reference case within the spec's tolerance, for each CPU projector.

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <memory>

#include "core/embedsom/embedsom.h"
#include "embedsom_fixture.h"
#include "test_paths.h"

namespace sepal {
namespace {

void checkAllCases(Projector& projector) {
    const auto root = test::sharedDataDir() / "embedsom";
    const auto dirs = test::embedsomCaseDirs(root);
    if (dirs.empty()) GTEST_SKIP() << test::sharedDataMissing(root);
    for (const auto& dir : dirs) {
        const auto c = test::loadEmbedsomCase(dir);
        std::vector<float> got(c.n * 2, -1.0f);
        const auto report = projector.project(c.x.data(), c.n, c.d, c.model, c.params, got.data());
        const auto err = test::fixtureError(got, c.y, c.model.low);
        std::printf("%s %s: max %.3g median %.3g (x extent); non-finite %zu degenerate %zu\n",
                    projector.name().c_str(), c.name.c_str(), err.max, err.median,
                    report.nonFinitePoints, report.degeneratePoints);
        EXPECT_LE(err.max, 1e-4) << c.name << ": worst point " << err.worst << " got ("
                                 << got[2 * err.worst] << ", " << got[2 * err.worst + 1]
                                 << ") want (" << c.y[2 * err.worst] << ", "
                                 << c.y[2 * err.worst + 1] << ")";
        EXPECT_LE(err.median, 1e-5) << c.name;
        EXPECT_EQ(report.nonFinitePoints, 0u) << c.name;
    }
}

TEST(EmbedsomFixtures, ReferenceProjectorMatchesEveryCase) {
    auto p = makeReferenceProjector();
    checkAllCases(*p);
}

TEST(EmbedsomFixtures, CpuProjectorMatchesEveryCase) {
    auto p = makeCpuProjector();
    checkAllCases(*p);
}

}  // namespace
}  // namespace sepal
