// The neighbour cache on the device (CudaProjector::keepNeighbourLists): after drags, layouts,
// added and removed landmarks, training steps, parameter changes and undo, the cached projection
// equals a full recompute bit for bit, and a drag re-projects only the cells listing the moved
// landmark.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/embedsom/embedsom.h"
#include "cuda/cuda_projector.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

struct CacheCase {
    size_t n, d, g;
    int k;
    const char* kernel;
};

/// Cells of x listing landmark j among their k nearest (brute force on the host, for the count
/// a drag of j may re-project).
size_t cellsListing(const std::vector<float>& x, size_t n, size_t d, const LandmarkModel& m,
                    size_t j, int k) {
    size_t count = 0;
    const size_t g = m.count();
    for (size_t p = 0; p < n; ++p) {
        const float* row = x.data() + p * d;
        bool finite = true;
        for (size_t t = 0; t < d; ++t) finite = finite && std::isfinite(row[t]);
        if (!finite) continue;
        auto dist = [&](size_t l) {
            double s = 0;
            for (size_t t = 0; t < d; ++t)
                s += double(row[t] - m.high[l * d + t]) * (row[t] - m.high[l * d + t]);
            return s;
        };
        const double mine = dist(j);
        int closer = 0;
        for (size_t l = 0; l < g && closer < k; ++l) closer += l != j && dist(l) < mine;
        count += closer < k;
    }
    return count;
}

class CudaNeighbourCache : public ::testing::TestWithParam<CacheCase> {};

TEST_P(CudaNeighbourCache, EditsGiveTheBitsOfAFullRecompute) {
    SEPAL_REQUIRE_GPU();
    const CacheCase c = GetParam();
    const size_t n = c.n, d = c.d;
    auto x = randomPoints(n, d, 71, 8);
    x[5 * d + 3] = NAN;  // cells with NaN or infinity follow their neighbours' 2D positions
    x[777 * d] = INFINITY;
    LandmarkModel model = sampleModel(x, n, d, c.g, 72);
    EmbedParams params;
    params.k = c.k;
    cuda::CudaProjector cached(c.kernel);
    cached.keepNeighbourLists(true);
    cached.setPoints(x.data(), n, d);
    std::vector<float> got(2 * n), want(2 * n);

    // Projects through the cache and through a fresh projector (every cell computed); at most
    // `most` cells may have been re-projected by the cached one.
    auto expectFullRecompute = [&](const std::string& step, size_t most) {
        SCOPED_TRACE(step);
        const ProjectionReport report = cached.projectToHost(model, params, got.data());
        const auto [bytes, refusal] = cached.cacheState();
        ASSERT_TRUE(refusal.empty()) << refusal;
        EXPECT_GE(bytes, n * size_t(c.k + 1) * 8);
        EXPECT_NE(cached.lastKernel().find("cached lists"), std::string::npos);
        EXPECT_LE(cached.lastProjected(), most);
        cuda::CudaProjector full(c.kernel);
        full.keepNeighbourLists(true);
        full.setPoints(x.data(), n, d);
        const ProjectionReport fullReport = full.projectToHost(model, params, want.data());
        EXPECT_EQ(full.lastProjected(), n);
        size_t differing = 0, first = n;
        for (size_t p = 0; p < n; ++p)
            if (std::memcmp(&got[2 * p], &want[2 * p], 2 * sizeof(float)) != 0 && differing++ == 0)
                first = p;
        EXPECT_EQ(differing, 0u) << "first at cell " << first << ": (" << got[2 * first] << ", "
                                 << got[2 * first + 1] << ") against (" << want[2 * first] << ", "
                                 << want[2 * first + 1] << ")";
        EXPECT_EQ(report.nonFinitePoints, 2u);
        EXPECT_EQ(report.degeneratePoints, fullReport.degeneratePoints);
        // And the list projection agrees with the CPU backend as every kernel does.
        std::vector<float> cpu(2 * n);
        makeCpuProjector()->project(x.data(), n, d, model, params, cpu.data());
        const auto err = pointErrors(got, cpu);
        EXPECT_LE(err[err.size() / 2], 1e-5 * extentOf(model.low));
    };

    expectFullRecompute("first projection", n);
    const LandmarkModel start = model;

    // A drag: one landmark moves in 2D, frame after frame; only its cells are projected again.
    const size_t dragged = 3;
    const size_t listing = cellsListing(x, n, d, model, dragged, c.k);
    ASSERT_GT(listing, 0u);
    // The host counts in double precision: a near tie at the k-th place may fall either way.
    for (int frame = 0; frame < 3; ++frame) {
        model.low[2 * dragged] += 0.37f;
        model.low[2 * dragged + 1] -= 0.11f;
        ++model.lowVersion;
        expectFullRecompute("drag frame " + std::to_string(frame), listing + 2);
        EXPECT_GE(cached.lastProjected() + 2, listing);
    }
    // Nothing changed: nothing projected.
    expectFullRecompute("no change", 0);
    // Three landmarks dragged together (a selection), one of them onto another's 2D spot.
    model.low[2 * 10] = model.low[2 * 11];
    model.low[2 * 10 + 1] = model.low[2 * 11 + 1];
    model.low[2 * 12] -= 1.0f;
    model.low[2 * 20] += 2.0f;
    ++model.lowVersion;
    expectFullRecompute("group drag", n);
    // A layout: every landmark moves.
    for (size_t j = 0; j < model.count(); ++j) model.low[2 * j] *= 1.25f;
    ++model.lowVersion;
    expectFullRecompute("layout", n);
    // smooth and adjust change every cell's position, not its lists.
    params.smooth = 0.5f;
    expectFullRecompute("smooth", n);
    params.adjust = 0.5f;
    expectFullRecompute("adjust", n);
    // A training step moves landmarks in data space: the lists are found again.
    for (size_t t = 0; t < d; ++t) model.high[7 * d + t] += 0.05f;
    ++model.highVersion;
    expectFullRecompute("training step", n);
    // Added and removed landmarks.
    std::vector<float> added(x.begin() + 100 * d, x.begin() + 101 * d);
    model.add(added.data(), 0.5f, -0.5f);
    expectFullRecompute("added landmark", n);
    model.remove(4);
    expectFullRecompute("removed landmark", n);
    // k changes the lists.
    params.k = c.k - 2;
    expectFullRecompute("smaller k", n);
    // Undo back to the start, then a drag from there.
    model = start;
    params = EmbedParams();
    params.k = c.k;
    expectFullRecompute("undo", n);
    model.low[2 * dragged] -= 0.2f;
    ++model.lowVersion;
    expectFullRecompute("drag after undo", listing + 2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaNeighbourCache,
                         ::testing::Values(CacheCase{20000, 32, 256, 16, "auto"},   // tensor+table
                                           CacheCase{12000, 64, 1024, 32, "auto"},  // tensor+parts
                                           // auto takes tensor (one kernel); the cache tensor+parts
                                           CacheCase{9000, 16, 1024, 8, "auto"},
                                           // the k-NN and projection side by side over chunks
                                           CacheCase{50000, 48, 512, 24, "tensor+split"}),
                         [](const ::testing::TestParamInfo<CacheCase>& info) {
                             const CacheCase& s = info.param;
                             std::string kernel = s.kernel;
                             for (char& ch : kernel)
                                 if (ch == '+') ch = '_';
                             return "d" + std::to_string(s.d) + "_g" + std::to_string(s.g) + "_k" +
                                    std::to_string(s.k) + "_" + kernel;
                         });

TEST(CudaNeighbourCache, OverItsLimitEveryChangeIsAFullProjectionAndStatsSayWhy) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 5000, d = 16, g = 64;
    const auto x = randomPoints(n, d, 81, 4);
    LandmarkModel model = sampleModel(x, n, d, g, 82);
    EmbedParams params;
    params.k = 8;
    cuda::CudaProjector projector("auto");
    projector.keepNeighbourLists(true);
    projector.setNeighbourCacheLimit(1000);  // far below 5000 cells' lists
    projector.setPoints(x.data(), n, d);
    std::vector<float> y(2 * n), plain(2 * n);
    projector.projectToHost(model, params, y.data());
    EXPECT_NE(projector.cacheState().second.find("would take"), std::string::npos)
        << projector.cacheState().second;
    EXPECT_EQ(projector.cacheState().first, 0u);
    model.low[0] += 1.0f;
    ++model.lowVersion;
    projector.projectToHost(model, params, y.data());
    EXPECT_EQ(projector.lastProjected(), n);
    EXPECT_EQ(projector.lastKernel().find("cached"), std::string::npos);
    cuda::CudaProjector off("auto");  // never asked for lists: the kernels as before
    off.setPoints(x.data(), n, d);
    off.projectToHost(model, params, plain.data());
    EXPECT_EQ(std::memcmp(y.data(), plain.data(), y.size() * sizeof(float)), 0);
    EXPECT_TRUE(off.cacheState().second.empty());
}

}  // namespace
}  // namespace sepal::test
