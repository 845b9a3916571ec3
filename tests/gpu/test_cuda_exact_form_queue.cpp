// The table projection's queue of cells that need the exact forms of D (ProjectionArgs::rare):
// with crowded landmarks, as a SOM's training leaves them, the cells placed by the table
// kernel's launch over the queue (SEPAL_TABLE_QUEUE_LISTS=0) keep the bits the warp that met
// them gave inline (SEPAL_TABLE_RARE_QUEUE=0), and those the list projection places (the
// default) agree with them to the spec's tolerance, on every path the table projection serves:
// streamed, resident through the neighbour cache (all cells, then a drag's few), and a resident
// range (the app's training slices).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"
#include "cuda/device_buffer.h"
#include "embedsom_hard_cases.h"
#include "gpu_test_support.h"
#include "scoped_env.h"

namespace sepal::test {
namespace {

struct QueueCase {
    const char* kernel;
    float spread;  ///< crowdLandmarks' spread: 1e-2 (the residual form) or 1e-4 (the O(d) form)
    float adjust;  ///< 3: the app's default recipe; 1: the headline's
};

class CudaExactFormQueue : public ::testing::TestWithParam<QueueCase> {};

/// Every way the table projection runs, once; the positions of each, one after another.
std::vector<float> projectEveryWay(const HardCase& hc, const char* kernel, size_t& queued) {
    const size_t n = hc.n, d = hc.d;
    std::vector<float> all;
    auto keep = [&](const std::vector<float>& y) { all.insert(all.end(), y.begin(), y.end()); };
    cuda::CudaProjector streamed(kernel);
    std::vector<float> y(2 * n);
    streamed.project(hc.x.data(), n, d, hc.model, hc.params, y.data());
    keep(y);

    cuda::CudaProjector resident(kernel);
    resident.enableTiming(true);  // for the count of cells queued
    resident.keepNeighbourLists(true);
    resident.setPoints(hc.x.data(), n, d);
    resident.projectToHost(hc.model, hc.params, y.data());
    queued = resident.lastTimes().exactFormCells;
    keep(y);
    LandmarkModel dragged = hc.model;
    dragged.low[2 * 5] += 0.25f;  // a drag: the cells listing landmark 5, through the lists
    dragged.touch();
    resident.projectToHost(dragged, hc.params, y.data());
    keep(y);

    cuda::CudaProjector ranged(kernel);
    ranged.setPoints(hc.x.data(), n, d);
    cuda::DeviceBuffer<float> out;
    out.reserve(2 * n);
    SEPAL_CUDA_CHECK(cudaMemset(out.get(), 0, 2 * n * sizeof(float)));
    ranged.projectRangeToDevice(hc.model, hc.params, n / 3, n / 2, out.get());
    SEPAL_CUDA_CHECK(
        cudaMemcpy(y.data(), out.get(), 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    keep(y);
    return all;
}

/// 20,000 blob cells of 32 markers whose 256 landmarks crowd into 8 groups of c.spread, with
/// the case's adjust (and the app's smooth with any adjust but 1).
HardCase crowdedCase(const QueueCase& c) {
    HardCase hc = blobCase("crowded", 20000, 32, 256, 61);
    crowdLandmarks(hc, 8, c.spread, 62);
    hc.params.k = 16;
    hc.params.smooth = c.adjust == 1.0f ? 0.0f : -2.0f;
    hc.params.adjust = c.adjust;
    return hc;
}

TEST_P(CudaExactFormQueue, KeepsTheBitsOfTheInlineExactForms) {
    SEPAL_REQUIRE_GPU();
    const QueueCase c = GetParam();
    const HardCase hc = crowdedCase(c);
    size_t queued = 0, inlineQueued = 0;
    std::vector<float> withQueue, inlined;
    {
        const ScopedEnv tableKernel("SEPAL_TABLE_QUEUE_LISTS", "0");
        withQueue = projectEveryWay(hc, c.kernel, queued);
    }
    {
        const ScopedEnv off("SEPAL_TABLE_RARE_QUEUE", "0");
        inlined = projectEveryWay(hc, c.kernel, inlineQueued);
    }
    // The queue took cells (most of a crowded model's), and none without it.
    EXPECT_GT(queued, hc.n / 10);
    EXPECT_EQ(inlineQueued, 0u);
    ASSERT_EQ(withQueue.size(), inlined.size());
    size_t differ = 0;
    for (size_t i = 0; i < withQueue.size(); ++i)
        differ += std::memcmp(&withQueue[i], &inlined[i], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u) << "of " << withQueue.size() << " coordinates";
    std::printf("exact-form queue %s spread %g adjust %g: %zu of %zu cells queued\n", c.kernel,
                double(c.spread), double(c.adjust), queued, hc.n);
}

TEST_P(CudaExactFormQueue, ThroughTheListProjectionAgreesWithTheTableKernel) {
    SEPAL_REQUIRE_GPU();
    const QueueCase c = GetParam();
    const HardCase hc = crowdedCase(c);
    size_t queued = 0, tableQueued = 0;
    const std::vector<float> lists = projectEveryWay(hc, c.kernel, queued);
    std::vector<float> table;
    {
        const ScopedEnv tableKernel("SEPAL_TABLE_QUEUE_LISTS", "0");
        table = projectEveryWay(hc, c.kernel, tableQueued);
    }
    EXPECT_GT(queued, hc.n / 10);
    EXPECT_EQ(queued, tableQueued);  // the same cells queued, placed another way
    ASSERT_EQ(lists.size(), table.size());
    // As CudaHardCases holds every kernel to the reference: the worst cell within 1e-4 of the
    // layout's extent, the median within 1e-5.
    const double extent = extentOf(hc.model.low);
    const auto err = pointErrors(lists, table);
    EXPECT_LE(err.back(), 1e-4 * extent);
    EXPECT_LE(err[err.size() / 2], 1e-5 * extent);
    size_t differ = 0;
    for (size_t i = 0; i < lists.size(); ++i)
        differ += std::memcmp(&lists[i], &table[i], sizeof(float)) != 0;
    EXPECT_GT(differ, 0u) << "the list projection did not place the queue";
    std::printf(
        "exact-form queue through lists %s spread %g adjust %g: worst %.3g of the "
        "extent, %zu of %zu coordinates not the table kernel's bits\n",
        c.kernel, double(c.spread), double(c.adjust), err.back() / extent, differ, lists.size());
}

INSTANTIATE_TEST_SUITE_P(CrowdedModels, CudaExactFormQueue,
                         ::testing::Values(QueueCase{"tensor+table", 1e-2f, 3.0f},
                                           QueueCase{"tensor+table", 1e-4f, 1.0f},
                                           QueueCase{"tensor+parts", 1e-2f, 3.0f}));

}  // namespace
}  // namespace sepal::test
