// The pair loop's kernels against each other. AVX-512 and AVX2 compute each term with the same
// float operations (their exp too), so their double sums agree to the sums' rounding; the
// portable loop takes the C library's exp (within about 1e-7 of the vector one). The exactness
// flag is the same for all.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/embedsom/fast_point.h"
#include "core/embedsom/pair_loops.h"
#include "core/knn/nearest_search.h"
#include "embedsom_data.h"

namespace sepal {
namespace {

struct PairCase {
    std::vector<float> a;
    std::vector<uint32_t> idx;
    FastPointScratch scratch;
};

// Point p's topn nearest landmarks (the CPU search the projector uses), with scores, 2D
// positions and pair-table slots as projectFastPoint lays them out in its scratch.
PairCase neighboursOf(const float* x, const LandmarkModel& model, const PairConstants& pairs,
                      int topn, std::mt19937& rng) {
    PairCase c;
    c.a.resize(size_t(topn));
    c.idx.resize(size_t(topn));
    makeCpuNearestSearch()->search(x, 1, model.high.data(), model.count(), model.dim, size_t(topn),
                                   c.idx.data(), c.a.data());
    c.scratch.reserve(topn + 1);
    std::uniform_real_distribution<float> score(0.0f, 2.0f);
    for (int i = 0; i < topn; ++i) {
        c.scratch.a[i] = c.a[i];
        c.scratch.idx[i] = pairs.slot(c.idx[i]);
        c.scratch.score[i] = i % 7 == 3 ? 0.0f : score(rng);
        c.scratch.lx[i] = model.low[2 * c.idx[i]];
        c.scratch.ly[i] = model.low[2 * c.idx[i] + 1];
    }
    return c;
}

void expectKernelsAgree(const LandmarkModel& model, const std::vector<float>& x, float adjust,
                        int topn, bool& sawInexact) {
    PairConstants pairs;
    pairs.update(model, adjust);
    std::mt19937 rng(unsigned(topn) * 31 + unsigned(model.count()));
    const size_t d = model.dim, n = x.size() / d;
    for (size_t p = 0; p < n; ++p) {
        const PairCase c = neighboursOf(x.data() + p * d, model, pairs, topn, rng);
        double portable[5] = {0, 0, 0, 0, 0}, avx2[5] = {0, 0, 0, 0, 0};
        const bool wantInexact = pairSums(PairKernel::Portable, c.a.data(), c.idx.data(), topn,
                                          pairs, c.scratch, portable);
        sawInexact |= wantInexact;
        EXPECT_EQ(
            pairSums(PairKernel::Avx2, c.a.data(), c.idx.data(), topn, pairs, c.scratch, avx2),
            wantInexact)
            << "point " << p << " topn " << topn;
        double scale = 1e-30;
        for (double v : portable) scale = std::max(scale, std::fabs(v));
        for (int s = 0; s < 5; ++s)
            ASSERT_NEAR(avx2[s], portable[s], 1e-6 * scale)
                << "AVX2 sum " << s << " point " << p << " topn " << topn;
        if (!pairKernelAvailable(PairKernel::Avx512)) continue;
        double avx512[5] = {0, 0, 0, 0, 0};
        EXPECT_EQ(
            pairSums(PairKernel::Avx512, c.a.data(), c.idx.data(), topn, pairs, c.scratch, avx512),
            wantInexact)
            << "point " << p << " topn " << topn;
        for (int s = 0; s < 5; ++s)
            ASSERT_NEAR(avx512[s], avx2[s], 1e-13 * scale)
                << "AVX-512 sum " << s << " point " << p << " topn " << topn;
    }
}

TEST(PairLoops, KernelsGiveTheSameSumsForEveryNeighbourCount) {
    if (!pairKernelAvailable(PairKernel::Avx2))
        GTEST_SKIP() << "this CPU has no AVX2: only the portable pair loop runs";
    const size_t d = 6, g = 81;
    const auto x = test::randomPoints(60, d, 5, 4);
    const auto model = test::gridModel(test::randomPoints(400, d, 6, 4), g, d);
    bool sawInexact = false;
    // 1-32 neighbours take the AVX-512 kernel's flattened lists (partial last steps among
    // them); 33 and 40 its fallback to the AVX2 loop.
    for (int topn : {1, 2, 3, 8, 15, 16, 17, 24, 31, 32, 33, 40})
        expectKernelsAgree(model, x, 3.0f, topn, sawInexact);
}

TEST(PairLoops, KernelsAgreeOnDuplicateLandmarksAndLostDigits) {
    if (!pairKernelAvailable(PairKernel::Avx2))
        GTEST_SKIP() << "this CPU has no AVX2: only the portable pair loop runs";
    const size_t d = 3, g = 30;
    auto model = test::gridModel(test::randomPoints(200, d, 8), g, d);
    // Two landmarks on one spot in both spaces (their pair is skipped: c = f = 0), and two
    // close in the data space so that far points lose digits in D's O(1) form.
    for (size_t t = 0; t < d; ++t) model.high[5 * d + t] = model.high[4 * d + t];
    model.low[10] = model.low[8], model.low[11] = model.low[9];
    model.touch();
    for (size_t t = 0; t < d; ++t) model.high[7 * d + t] = model.high[6 * d + t] + 1e-3f;
    std::vector<float> x = test::randomPoints(40, d, 9);
    for (size_t t = 0; t < d; ++t) x[t] = 50.0f + float(t);
    bool sawInexact = false;
    for (int topn : {8, 16, 29}) expectKernelsAgree(model, x, 0.5f, topn, sawInexact);
    EXPECT_TRUE(sawInexact) << "no case reached the O(1) form's loss of digits";
}

}  // namespace
}  // namespace sepal
