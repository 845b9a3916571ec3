// The t-SNE gradient's sums: the AVX2 pass gives the portable pass's bits, and both are the sums
// (against a plain double-precision loop).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/train/tsne_sums.h"

namespace sepal {
namespace {

TEST(TsneSums, AvxAndPortablePassesGiveTheSameBits) {
    // Landmark counts around the eight lanes, positions and probabilities of every scale.
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1e-3f);
    for (size_t g : {size_t(3), size_t(8), size_t(13), size_t(64), size_t(517)}) {
        std::vector<float> xs(g), ys(g), p(g);
        for (size_t j = 0; j < g; ++j) xs[j] = normal(rng), ys[j] = normal(rng), p[j] = unit(rng);
        for (size_t i = 0; i < g; i += 1 + g / 7) {
            const TsneRowSums a = tsneRowSums(xs.data(), ys.data(), p.data(), g, xs[i], ys[i]);
            const TsneRowSums b =
                tsneRowSumsPortable(xs.data(), ys.data(), p.data(), g, xs[i], ys[i]);
            EXPECT_EQ(a.attractX, b.attractX) << g << " " << i;
            EXPECT_EQ(a.attractY, b.attractY) << g << " " << i;
            EXPECT_EQ(a.repelX, b.repelX) << g << " " << i;
            EXPECT_EQ(a.repelY, b.repelY) << g << " " << i;
            EXPECT_EQ(a.w, b.w) << g << " " << i;
            // And the sums are the sums: against a plain double-precision loop.
            double w = 0, rx = 0;
            for (size_t j = 0; j < g; ++j) {
                const double dx = double(xs[i]) - xs[j], dy = double(ys[i]) - ys[j];
                const double wj = 1.0 / (1.0 + dx * dx + dy * dy);
                w += wj, rx += wj * wj * dx;
            }
            EXPECT_NEAR(a.w, w, 1e-5 * w) << g;
            EXPECT_NEAR(a.repelX, rx, 1e-4 * (std::fabs(rx) + 1.0)) << g;
        }
    }
}

}  // namespace
}  // namespace sepal
