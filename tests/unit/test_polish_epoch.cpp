// One epoch of the polish: eight cells at a time (AVX2, short series for the pow) moves every cell
// as the one-by-one way with the C library's pow does, within the series' error; a cell count
// that is no multiple of 8 and cells that may not move are handled; threads change nothing.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/pipeline/polish_epoch.h"
#include "core/train/umap_layout.h"

namespace sepal {
namespace {

struct EpochSetup {
    PolishGraph graph;
    std::vector<uint8_t> usable;
    std::vector<uint32_t> keep;
    std::vector<float> y;
    PolishStep step;
};

// n cells in a box of +-30 (a polished picture's scale), k random neighbours each (some
// missing), every 7th cell unable to move.
EpochSetup randomSetup(size_t n, size_t k) {
    EpochSetup s;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> place(-30.0f, 30.0f), weight(0.05f, 1.0f);
    s.graph.n = n;
    s.graph.k = k;
    s.graph.stride = (n + 7) / 8 * 8;
    s.graph.nbr.resize(k * s.graph.stride);
    s.graph.weight.assign(k * s.graph.stride, 0.0f);
    s.graph.weights.assign(s.graph.stride, 0.0f);
    s.usable.assign(s.graph.stride, 0);
    for (size_t i = 0; i < n; ++i) {
        s.usable[i] = i % 7 != 3;
        if (s.usable[i]) s.keep.push_back(uint32_t(i));
    }
    for (size_t i = 0; i < s.graph.stride; ++i)
        for (size_t r = 0; r < k; ++r) {
            const size_t at = r * s.graph.stride + i;
            const bool present = i < n && r < k - i % 3;  // the last places of some cells empty
            s.graph.nbr[at] = present ? uint32_t(rng() % n) : uint32_t(i);
            s.graph.weight[at] = present ? weight(rng) : 0.0f;
            s.graph.weights[i] += s.graph.weight[at];
        }
    s.y.assign(2 * s.graph.stride, 0.0f);
    for (size_t i = 0; i < 2 * n; ++i) s.y[i] = place(rng);
    // Two cells at one place: a term of d2 = 0 counts nothing on either path.
    s.y[2 * 5] = s.y[2 * 6], s.y[2 * 5 + 1] = s.y[2 * 6 + 1];
    const CurveParams curve = fitCurve(0.1, 1.0);
    s.step.a = float(curve.a), s.step.b = float(curve.b);
    s.step.rate = 1.0f;
    s.step.repulsion = 0.05f;
    s.step.negativeSamples = 5;
    s.step.seed = 3;
    s.step.epoch = 2;
    return s;
}

std::vector<float> epoch(const EpochSetup& s, PolishPath path) {
    std::vector<float> next(s.y.size(), -1.0f);
    polishEpoch(s.graph, s.usable, s.keep, s.y.data(), next.data(), s.step, path);
    return next;
}

TEST(PolishEpoch, EightAtATimeMovesAsOneByOneAndKeepsUnusableCells) {
    for (size_t n : {size_t(8), size_t(1003)}) {
        const EpochSetup s = randomSetup(n, 15);
        const std::vector<float> fast = epoch(s, PolishPath::Fastest);
        const std::vector<float> slow = epoch(s, PolishPath::OneByOne);
        size_t moved = 0;
        for (size_t i = 0; i < n; ++i)
            for (int c = 0; c < 2; ++c) {
                const float was = s.y[2 * i + c];
                if (!s.usable[i]) {
                    EXPECT_EQ(fast[2 * i + c], was) << "cell " << i;
                    EXPECT_EQ(slow[2 * i + c], was) << "cell " << i;
                    continue;
                }
                const double a = fast[2 * i + c] - was, b = slow[2 * i + c] - was;
                moved += std::abs(b) > 1e-3;
                EXPECT_NEAR(a, b, 1e-4 * std::abs(b) + 2e-5) << "n " << n << ", cell " << i;
            }
        EXPECT_GT(moved, n / 2) << "n " << n;
    }
}

TEST(PolishEpoch, ThreadsChangeNothing) {
    const EpochSetup s = randomSetup(1003, 15);
    const int threads = omp_get_max_threads();
    std::vector<float> results[2];
    for (int t = 0; t < 2; ++t) {
        omp_set_num_threads(t + 1);
        results[t] = epoch(s, PolishPath::Fastest);
    }
    omp_set_num_threads(threads);
    EXPECT_EQ(results[0], results[1]);
}

}  // namespace
}  // namespace sepal
