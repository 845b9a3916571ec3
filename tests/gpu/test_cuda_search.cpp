// GPU nearest-landmark search and batch training sums against plain host loops.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "cuda/cuda_projector.h"
#include "cuda/embedsom_kernels.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// Host k-NN with the GPU's arithmetic (fused multiply-add, dimension order), ties by index.
void hostKnn(const std::vector<float>& x, size_t n, const std::vector<float>& l, size_t g, size_t d,
             size_t k, std::vector<uint32_t>& idx, std::vector<float>& dist) {
    idx.resize(n * k);
    dist.resize(n * k);
    std::vector<std::pair<float, uint32_t>> all(g);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < g; ++j) {
            float acc = 0;
            for (size_t t = 0; t < d; ++t) {
                const float e = x[i * d + t] - l[j * d + t];
                acc += e * e;
            }
            all[j] = {acc, uint32_t(j)};
        }
        std::partial_sort(all.begin(), all.begin() + k, all.end());
        for (size_t a = 0; a < k; ++a)
            idx[i * k + a] = all[a].second, dist[i * k + a] = all[a].first;
    }
}

struct SearchShape {
    size_t n, d, g, k;
};

class CudaSearch : public ::testing::TestWithParam<SearchShape> {};

TEST_P(CudaSearch, FindsExactlyTheHostNeighbours) {
    SEPAL_REQUIRE_GPU();
    const auto s = GetParam();
    const auto x = randomPoints(s.n, s.d, 21, 3);
    auto l = randomPoints(s.g, s.d, 22, 3);
    if (s.g > 4) std::copy(l.begin(), l.begin() + s.d, l.begin() + 3 * s.d);  // a tie
    std::vector<uint32_t> ref, got(s.n * s.k);
    std::vector<float> refDist, gotDist(s.n * s.k);
    hostKnn(x, s.n, l, s.g, s.d, s.k, ref, refDist);
    auto search = cuda::makeCudaNearestSearch();
    search->search(x.data(), s.n, l.data(), s.g, s.d, s.k, got.data(), gotDist.data());
    EXPECT_EQ(got, ref);
    EXPECT_EQ(gotDist, refDist);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaSearch,
                         ::testing::Values(SearchShape{1, 4, 5, 1}, SearchShape{333, 16, 64, 8},
                                           SearchShape{1025, 32, 256, 17},
                                           SearchShape{200, 128, 4096, 10},
                                           SearchShape{100, 20, 50, 50},
                                           SearchShape{70, 200, 90, 3}),
                         [](const ::testing::TestParamInfo<SearchShape>& info) {
                             const SearchShape& s = info.param;
                             return "n" + std::to_string(s.n) + "_d" + std::to_string(s.d) + "_g" +
                                    std::to_string(s.g) + "_k" + std::to_string(s.k);
                         });

/// GPU and host neighbours of x among l (k each) must be identical, indices and distances.
void expectSameNeighbours(const std::vector<float>& x, size_t n, const std::vector<float>& l,
                          size_t g, size_t d, size_t k, const char* what,
                          const char* kernel = "tensor") {
    std::vector<uint32_t> ref, got(n * k);
    std::vector<float> refDist, gotDist(n * k);
    hostKnn(x, n, l, g, d, k, ref, refDist);
    cuda::makeCudaNearestSearch(kernel)->search(x.data(), n, l.data(), g, d, k, got.data(),
                                                gotDist.data());
    EXPECT_EQ(got, ref) << what << " (" << kernel << ")";
    EXPECT_EQ(gotDist, refDist) << what << " (" << kernel << ")";
}

// The host's fragment layout of the tensor kernel's landmarks puts every (landmark, dimension)
// in its own place and fills the rows exactly (a host check: it runs without a GPU too), and
// the lane that owns a value is the one whose B fragment the PTX layout gives it.
TEST(TensorLandmarks, FragmentOrderIsAPermutationInMmaLayout) {
    for (int ks : {16, 32, 64}) {
        const size_t g = 64;
        std::vector<int> seen(g * ks, 0);
        for (size_t i = 0; i < g; ++i) {
            for (size_t t = 0; t < size_t(ks); ++t) {
                const size_t at = cuda::tensorFragmentIndex(i, t, ks);
                ASSERT_LT(at, seen.size());
                ++seen[at];
                // b0 (b1) of lane 4 n + k holds row k (k + 4) of the k-step, column n.
                const size_t lane = (at / 4) % 32, slot = at % 4;
                EXPECT_EQ(lane / 4, i % 8);
                EXPECT_EQ(lane % 4 + 4 * (slot % 2) + 8 * (slot / 2), t % 16);
            }
        }
        for (int c : seen) ASSERT_EQ(c, 1) << "ks " << ks;
    }
}

// The same for the FP16 fragments of the parts k-NN (m16n8k16: lane 4 n + k holds rows 2 k,
// 2 k + 1 in its first register and 2 k + 8, 2 k + 9 in its second, column n).
TEST(TensorLandmarks, HalfFragmentOrderIsAPermutationInMmaLayout) {
    for (int kw : {32, 64}) {
        const size_t g = 64;
        std::vector<int> seen(g * kw, 0);
        for (size_t i = 0; i < g; ++i) {
            for (size_t t = 0; t < size_t(kw); ++t) {
                const size_t at = cuda::halfFragmentIndex(i, t, kw);
                ASSERT_LT(at, seen.size());
                ++seen[at];
                const size_t lane = (at / 8) % 32, half = at % 8;
                EXPECT_EQ(lane / 4, i % 8);
                EXPECT_EQ(2 * (lane % 4) + (half % 2) + 8 * ((half / 2) % 2) + 16 * (half / 4),
                          t % 32);
                EXPECT_EQ(at / (8 * 32 * size_t(kw / 32)), i / 8);
            }
        }
        for (int c : seen) ASSERT_EQ(c, 1) << "kw " << kw;
    }
}

// The tensor kernels rank candidates in TF32 and must still find exactly the host's neighbours
// where TF32 is weakest: data far from the origin, a map whose neighbours are consecutive
// indices, many landmarks at one distance (more candidates than they keep: the exhaustive scan,
// or the parts k-NN's re-ranks in batches), and the largest list (beyond the resident k-NN,
// which leaves it to the fused kernel).
class CudaTensorSearch : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaTensorSearch, CandidatesMissNoNeighbourOnHardData) {
    SEPAL_REQUIRE_GPU();
    const char* kernel = GetParam();
    {
        const auto x = randomPoints(2000, 16, 41, 3, 1000.0f);
        const auto l = randomPoints(256, 16, 42, 3, 1000.0f);
        expectSameNeighbours(x, 2000, l, 256, 16, 17, "offset 1000", kernel);
    }
    {
        const size_t d = 8, side = 16, g = side * side;
        std::vector<float> l(g * d, 0.0f);
        for (size_t r = 0; r < side; ++r)
            for (size_t c = 0; c < side; ++c)
                l[(r * side + c) * d] = float(r), l[(r * side + c) * d + 1] = float(c);
        auto x = randomPoints(3000, d, 43);
        for (size_t i = 0; i < 3000; ++i)
            x[i * d] = 7.5f + 4.0f * x[i * d], x[i * d + 1] = 7.5f + 4.0f * x[i * d + 1];
        expectSameNeighbours(x, 3000, l, g, d, 17, "16x16 grid", kernel);
    }
    // Points at (or near) the origin, landmarks at +-e_t and +-2 e_t: 2d landmarks tie at
    // distance 1, more than the sublists of a point's candidates hold (16 per lane for k <= 9,
    // 32 for k <= 17), so the points near the origin take the exhaustive scan (the parts k-NN:
    // re-ranks in batches).
    auto ties = [&](size_t d, size_t k, const char* what) {
        const size_t g = 4 * d, n = 300;
        std::vector<float> l(g * d, 0.0f);
        for (size_t t = 0; t < d; ++t)
            for (size_t s = 0; s < 4; ++s)
                l[(4 * t + s) * d + t] = s == 0 ? 1.0f : s == 1 ? -1.0f : s == 2 ? 2.0f : -2.0f;
        std::vector<float> x(n * d, 0.0f);
        for (size_t i = 1; i < n; ++i) x[i * d + i % d] = 1e-3f * float(i);
        expectSameNeighbours(x, n, l, g, d, k, what, kernel);
    };
    ties(32, 9, "64 ties, k 9");
    ties(64, 17, "128 ties, k 17");
    {
        const auto x = randomPoints(3000, 64, 44);
        const auto l = randomPoints(1024, 64, 45);
        expectSameNeighbours(x, 3000, l, 1024, 64, 33, "d64 g1024 k33", kernel);
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, CudaTensorSearch,
                         ::testing::Values("tensor", "resident", "parts"));

// The parts k-NN: ties split over parts (a later part's equal distances must not displace an
// earlier index), a part with more tied candidates than it keeps, a landmark count that leaves
// the last part short, and points too far out for FP16 (they scan exactly).
TEST(CudaPartsSearch, PartsKeepTiesAndFarPointsExact) {
    SEPAL_REQUIRE_GPU();
    {
        // Landmark 64 s + t is m_s e_t: +-1 at s = 0, 1 and 15 (indices 960 on: the third part
        // at d = 64), 2 .. 8 elsewhere. Points at or near the origin tie 192 ways at distance 1.
        const size_t d = 64, g = 1024, n = 400;
        std::vector<float> l(g * d, 0.0f);
        for (size_t s = 0; s < 16; ++s) {
            const float m = s == 0 || s == 15 ? 1.0f : s == 1 ? -1.0f : float(2 + s % 7);
            for (size_t t = 0; t < d; ++t) l[(s * d + t) * d + t] = s % 2 ? -m : m;
        }
        std::vector<float> x(n * d, 0.0f);
        for (size_t i = 1; i < n; ++i) x[i * d + i % d] = 1e-3f * float(i % 50);
        expectSameNeighbours(x, n, l, g, d, 33, "192 ties over parts, k 33", "parts");
        expectSameNeighbours(x, n, l, g, d, 17, "192 ties over parts, k 17", "parts");
    }
    {
        const size_t d = 48, g = 1000, n = 2000;
        auto x = randomPoints(n, d, 46, 5);
        const auto l = randomPoints(g, d, 47, 5);
        for (size_t i = 0; i < n; i += 97)
            for (size_t t = 0; t < d; ++t) x[i * d + t] *= 1e5f;  // beyond FP16's reach
        expectSameNeighbours(x, n, l, g, d, 33, "g 1000, far points", "parts");
        expectSameNeighbours(x, n, l, g, d, 9, "g 1000, k 9", "parts");
    }
}

// Crowded landmarks, as a SOM's at g = 1024 (the app's training frames): 8 tight clusters of 128
// landmarks, so that a cell's FP16 margin admits its whole cluster, more candidates than a part
// keeps. The warp re-ranks them in batches (no cell scans every landmark) and still finds the
// host's neighbours exactly.
TEST(CudaPartsSearch, CrowdedPartsReRankInBatchesNotExhaustively) {
    SEPAL_REQUIRE_GPU();
    const size_t d = 32, g = 1024, n = 4000, clusters = 8;
    std::mt19937 rng(48);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centres(clusters * d), l(g * d), x(n * d);
    for (auto& c : centres) c = 3.0f * normal(rng);
    for (size_t j = 0; j < g; ++j)
        for (size_t t = 0; t < d; ++t)
            l[j * d + t] = centres[(j / 128) * d + t] + 0.1f * normal(rng);
    for (size_t i = 0; i < n; ++i)
        for (size_t t = 0; t < d; ++t)
            x[i * d + t] = centres[(i % clusters) * d + t] + 0.3f * normal(rng);
    expectSameNeighbours(x, n, l, g, d, 17, "8 clusters of 128 landmarks, k 17", "parts");

    LandmarkModel model;
    model.resize(g, d);
    model.high = l;
    for (size_t j = 0; j < g; ++j)
        model.low[2 * j] = float(j % 32), model.low[2 * j + 1] = float(j / 32);
    model.touch();
    cuda::CudaProjector projector("tensor+parts");
    projector.enableTiming(true);  // for the candidates' counts
    projector.setPoints(x.data(), n, d);
    std::vector<float> y(2 * n);
    EmbedParams params;
    params.k = 16;
    projector.projectToHost(model, params, y.data());
    const cuda::PhaseTimes t = projector.lastTimes();
    EXPECT_GT(t.candidatesPerPoint, 100.0) << "the clusters should crowd a part's candidates";
    EXPECT_EQ(t.exactScans, 0u) << "of " << n << " cells";
    std::printf("crowded parts: %.1f candidates a cell, %llu exhaustive scans\n",
                t.candidatesPerPoint, t.exactScans);
}

}  // namespace
}  // namespace sepal::test
