// The list projection's pair terms by locality rank (pair_rank.h): the dense table holds the
// triangular table's terms bit for bit, and the positions are those of the triangular table, bit
// for bit, on every path through the lists and through every change of the model. (The ranks
// themselves: tests/unit/test_pair_constants_rank.cpp.)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/embedsom/locality_rank.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"
#include "cuda/device_buffer.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/kernel_registry.h"
#include "cuda/pair_rank.h"
#include "gpu_test_support.h"
#include "scoped_pair_rank.h"

namespace sepal::test {
namespace {

TEST(CudaPairRank, TheDenseTableHoldsTheTriangularTerms) {
    SEPAL_REQUIRE_GPU();
    const int g = 37, d = 6, stride = cuda::paddedDim(d);
    std::vector<float> x = randomPoints(size_t(g), size_t(d), 5, 3);
    std::vector<float> padded(size_t(g) * stride, 0.0f), low(2 * size_t(g));
    for (int j = 0; j < g; ++j) {
        std::copy(x.begin() + j * d, x.begin() + (j + 1) * d, padded.begin() + j * stride);
        low[2 * j] = float(j % 7), low[2 * j + 1] = float(j / 7);
    }
    const std::vector<uint16_t> rank = localityRanks(x.data(), size_t(g), size_t(d));
    cuda::DeviceBuffer<float> landmarksDev, lowDev;
    cuda::DeviceBuffer<float2> triangular, dense;
    cuda::DeviceBuffer<uint16_t> rankDev;
    landmarksDev.reserve(padded.size());
    lowDev.reserve(low.size());
    triangular.reserve(cuda::pairTableSize(size_t(g)));
    dense.reserve(size_t(g) * g);
    rankDev.reserve(size_t(g));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(landmarksDev.get(), padded.data(), padded.size() * 4, cudaMemcpyHostToDevice));
    SEPAL_CUDA_CHECK(cudaMemcpy(lowDev.get(), low.data(), low.size() * 4, cudaMemcpyHostToDevice));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(rankDev.get(), rank.data(), rank.size() * 2, cudaMemcpyHostToDevice));
    cuda::launchPairTerms(landmarksDev.get(), lowDev.get(), g, stride, 3.0f, triangular.get(),
                          nullptr);
    cuda::launchPairTermsByRank(triangular.get(), rankDev.get(), g, dense.get(), nullptr);
    std::vector<float2> tri(cuda::pairTableSize(size_t(g))), byRank(size_t(g) * g);
    SEPAL_CUDA_CHECK(cudaMemcpy(tri.data(), triangular.get(), tri.size() * sizeof(float2),
                                cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(cudaMemcpy(byRank.data(), dense.get(), byRank.size() * sizeof(float2),
                                cudaMemcpyDeviceToHost));
    for (int u = 0; u < g; ++u)
        for (int v = 0; v < g; ++v) {
            const int hi = std::max(u, v), lo = std::min(u, v);
            const float2 want = tri[size_t(hi) * (hi + 1) / 2 + lo];
            const float2 got = byRank[size_t(rank[u]) * g + rank[v]];
            ASSERT_EQ(std::memcmp(&want, &got, sizeof(float2)), 0) << "pair " << u << ", " << v;
        }
}

// Only the projections that read the pair table from global memory take it by rank: the table
// projection holds it in shared memory, and the one-pass kernels read it a thread a cell.
TEST(CudaPairRank, OnlyTheListProjectionTakesIt) {
    SEPAL_REQUIRE_GPU();
    cuda::ProjectionArgs a;
    a.n = size_t(1) << 20;
    a.dim = 32;
    a.stride = 32;
    a.g = 256;
    a.topn = 16;
    a.topnn = 17;
    const cuda::KernelShape table = cuda::shapeOf(a);
    EXPECT_FALSE(cuda::projectsThroughLists(cuda::findKernel("tensor+table"), table));
    // tensor+parts projects through the table where its 129 KB fit in shared memory.
    EXPECT_EQ(cuda::projectsThroughLists(cuda::findKernel("tensor+parts"), table),
              !cuda::tableProjectionRefusal(table).empty());
    EXPECT_FALSE(cuda::projectsThroughLists(cuda::findKernel("fused"), table));
    EXPECT_TRUE(cuda::projectsThroughLists(cuda::findKernel("tensor+split"), table));
    a.g = 1024;
    EXPECT_TRUE(cuda::projectsThroughLists(cuda::findKernel("tensor+parts"), cuda::shapeOf(a)));
}

/// The positions of every path through the lists, one after another: streamed, resident through
/// the neighbour cache (every cell, then a drag's few), and a resident range (a training slice);
/// the drag and the range keep the triangular table.
std::vector<float> projectEveryWay(const std::vector<float>& x, size_t n, size_t d,
                                   const LandmarkModel& model, const EmbedParams& params,
                                   const char* kernel) {
    std::vector<float> all, y(2 * n);
    const auto keep = [&] { all.insert(all.end(), y.begin(), y.end()); };
    cuda::CudaProjector streamed(kernel);
    streamed.project(x.data(), n, d, model, params, y.data());
    keep();

    cuda::CudaProjector resident(kernel);
    resident.keepNeighbourLists(true);
    resident.setPoints(x.data(), n, d);
    resident.projectToHost(model, params, y.data());
    keep();
    // A drag's few cells keep the triangular table too.
    LandmarkModel dragged = model;
    dragged.low[2 * 5] += 0.25f;
    dragged.touch();
    const unsigned long long beforeDrag = cuda::listLaunchesByRank();
    resident.projectToHost(dragged, params, y.data());
    EXPECT_EQ(cuda::listLaunchesByRank(), beforeDrag) << "a drag read the pair terms by rank";
    keep();

    // A range (a training slice) keeps the triangular table: the ranks would cost more there.
    cuda::CudaProjector ranged(kernel);
    ranged.setPoints(x.data(), n, d);
    cuda::DeviceBuffer<float> out;
    out.reserve(2 * n);
    SEPAL_CUDA_CHECK(cudaMemset(out.get(), 0, 2 * n * sizeof(float)));
    const unsigned long long before = cuda::listLaunchesByRank();
    ranged.projectRangeToDevice(model, params, n / 5, n - n / 5, out.get());
    EXPECT_EQ(cuda::listLaunchesByRank(), before) << "a range read the pair terms by rank";
    SEPAL_CUDA_CHECK(
        cudaMemcpy(y.data(), out.get(), 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    keep();
    return all;
}

struct RankCase {
    size_t g;
    int k;
    size_t n;     ///< cells (a small case for racecheck)
    float crowd;  ///< 0, or crowdLandmarks' spread (1e-2: the residual pairs; 1e-4: the O(d) form)
};

class CudaPairRankPositions : public ::testing::TestWithParam<RankCase> {};

// Clustered cells whose landmarks are too many for the table projection (g 1024, and 2000 for
// ranks that are no power of two), k 16 and 32, through tensor+parts and tensor+split
// (tensor+parts where the split has no partitions); landmarks crowded in groups of 8, whose pairs
// take the residual and the O(d) forms of D; a few cells with NaN.
TEST_P(CudaPairRankPositions, AreTheTriangularTablesBitForBit) {
    SEPAL_REQUIRE_GPU();
    const RankCase c = GetParam();
    const size_t n = c.n, d = 16;
    HardCase hc;
    hc.n = n;
    hc.d = d;
    hc.x = randomPoints(n, d, 21, 12);
    hc.model = sampleModel(hc.x, n, d, c.g, 22);
    if (c.crowd > 0) crowdLandmarks(hc, 8, c.crowd, 23);
    std::vector<float>& x = hc.x;
    const LandmarkModel& model = hc.model;
    for (size_t p = 5; p < n; p += 997) x[p * d + 3] = NAN;  // the lists mark them
    EmbedParams params;
    params.k = c.k;
    params.smooth = -2.0f;
    params.adjust = 3.0f;
    for (const char* kernel : {"tensor+parts", "tensor+split"}) {
        SCOPED_TRACE(kernel);
        std::vector<float> byRank, triangular;
        const unsigned long long before = cuda::listLaunchesByRank();
        {
            ScopedPairRank on(true);
            ASSERT_TRUE(cuda::pairTermsByRankApply(c.g));
            byRank = projectEveryWay(x, n, d, model, params, kernel);
        }
        // The streamed chunks and the cache's every cell.
        EXPECT_GE(cuda::listLaunchesByRank() - before, 2u);
        const unsigned long long middle = cuda::listLaunchesByRank();
        {
            ScopedPairRank off(false);
            triangular = projectEveryWay(x, n, d, model, params, kernel);
        }
        EXPECT_EQ(cuda::listLaunchesByRank(), middle);
        ASSERT_EQ(byRank.size(), triangular.size());
        size_t differ = 0;
        for (size_t e = 0; e < triangular.size(); ++e)
            differ += std::memcmp(&byRank[e], &triangular[e], sizeof(float)) != 0;
        EXPECT_EQ(differ, 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaPairRankPositions,
    ::testing::Values(RankCase{1024, 16, 20000, 0}, RankCase{1024, 32, 20000, 0},
                      RankCase{2000, 16, 20000, 0}, RankCase{1024, 16, 20000, 1e-2f},
                      RankCase{1024, 32, 20000, 1e-4f}, RankCase{1024, 16, 1500, 0}),
    [](const auto& info) {
        const RankCase& c = info.param;
        return "g" + std::to_string(c.g) + "_k" + std::to_string(c.k) +
               (c.crowd == 0      ? ""
                : c.crowd > 1e-3f ? "_crowded"
                                  : "_tight") +
               "_n" + std::to_string(c.n);
    });

/// A projection of every resident cell on a fresh projector with the triangular table.
std::vector<float> projectTriangular(const std::vector<float>& x, size_t n, size_t d,
                                     const LandmarkModel& model, const EmbedParams& params) {
    ScopedPairRank off(false);
    cuda::CudaProjector fresh("tensor+parts");
    fresh.setPoints(x.data(), n, d);
    std::vector<float> y(2 * n);
    fresh.projectToHost(model, params, y.data());
    return y;
}

// One projector through a user's changes, each projecting every cell: new data-space landmarks
// (the ranks and the table again), new 2D positions only (the table again, the ranks kept), a new
// adjust, another number of landmarks. Each time the positions are a fresh projector's with the
// triangular table, bit for bit: a stale dense table would differ.
TEST(CudaPairRank, FollowsEveryChangeOfTheModelOnOneProjector) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 20000, d = 16;
    const std::vector<float> x = randomPoints(n, d, 31, 12);
    std::mt19937 rng(32);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    LandmarkModel model = sampleModel(x, n, d, 1024, 33);
    EmbedParams params;
    params.k = 16;
    params.smooth = -2.0f;
    params.adjust = 3.0f;
    cuda::CudaProjector projector("tensor+parts");
    projector.setPoints(x.data(), n, d);
    std::vector<float> y(2 * n);
    auto check = [&](const char* change) {
        SCOPED_TRACE(change);
        const unsigned long long before = cuda::listLaunchesByRank();
        {
            ScopedPairRank on(true);
            projector.projectToHost(model, params, y.data());
        }
        EXPECT_GT(cuda::listLaunchesByRank(), before) << "the dense table was not read";
        const std::vector<float> want = projectTriangular(x, n, d, model, params);
        size_t differ = 0;
        for (size_t e = 0; e < want.size(); ++e)
            differ += std::memcmp(&y[e], &want[e], sizeof(float)) != 0;
        EXPECT_EQ(differ, 0u);
    };
    check("the first model");
    for (float& v : model.high) v += 0.05f * normal(rng);
    model.touch();
    check("the landmarks moved in data space");
    for (float& v : model.low) v *= 1.1f;
    model.touch();
    check("the 2D positions moved");
    params.adjust = 2.0f;
    check("another adjust");
    model = sampleModel(x, n, d, 1500, 34);
    check("1500 landmarks");
}

}  // namespace
}  // namespace sepal::test
