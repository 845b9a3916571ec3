// The trainers over every cell on the GPU (Backend::wholeData, a cuda::TrainingStep behind core's
// WholeDataSteps) against the same trainers on the CPU: Lloyd's k-means and the batch SOM give
// the same landmarks within float tolerance, step after step, and locked landmarks stay put.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "backend/backends.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/batch_som_trainer.h"
#include "core/train/lloyd_trainer.h"
#include "cuda/embedsom_kernels.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// The CUDA backend's whole-data steps over the points (the test fails without them).
std::unique_ptr<WholeDataSteps> gpuSteps(const std::vector<float>& x, size_t n, size_t d) {
    Backend backend = makeBackend("cuda");
    EXPECT_TRUE(backend.wholeData) << "the CUDA backend offers no whole-data steps";
    if (!backend.wholeData) return nullptr;
    return backend.wholeData(x.data(), n, d);
}

/// Landmarks equal within the float sums' rounding (the GPU sums in float per block of cells).
void expectSameLandmarks(const LandmarkModel& gpu, const LandmarkModel& cpu) {
    ASSERT_EQ(gpu.high.size(), cpu.high.size());
    for (size_t e = 0; e < cpu.high.size(); ++e)
        EXPECT_NEAR(gpu.high[e], cpu.high[e], 1e-4 * std::max(1.0f, std::abs(cpu.high[e])))
            << "landmark " << e / cpu.dim << ", dimension " << e % cpu.dim;
}

/// What the device did in `steps` steps over n cells (the app's --bench-frames figures).
void expectFigures(const WholeDataFigures& f, size_t steps, size_t n) {
    EXPECT_EQ(f.steps, steps);
    EXPECT_EQ(f.cells, steps * n);
    EXPECT_GT(f.deviceMs, 0.0);
    EXPECT_GE(f.deviceMs, f.exactScanMs);
    // A kept cell is not searched; a lone one is searched and not scanned.
    EXPECT_LE(f.exactScans + f.keptCells + f.loneCells, f.cells);
    // The nearest pass at these shapes where the device has its tensor cores (every H100 and
    // H200), another kernel where not.
    EXPECT_EQ(f.nearestSteps, cuda::currentDeviceLimits().major >= 8 ? steps : 0u);
}

TEST(CudaWholeDataTraining, LloydOverEveryCellFollowsTheCpuTrainer) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 6000, d = 12, g = 24;
    const auto x = randomPoints(n, d, 101, 8);
    LandmarkModel cpu = sampleModel(x, n, d, g, 102);
    cpu.locked[5] |= kLockHigh;  // stays where it is on both paths
    LandmarkModel gpu = cpu;
    const std::vector<float> locked(cpu.highRow(5), cpu.highRow(5) + d);
    auto search = makeCpuNearestSearch();
    const TrainingData data{x.data(), n, d};
    LloydParams p;
    p.epochs = 4;
    LloydTrainer onCpu(p, *search), onGpu(p, *search);
    auto steps = gpuSteps(x, n, d);
    ASSERT_TRUE(steps);
    ASSERT_TRUE(onGpu.useWholeData(steps.get()));
    for (size_t it = 0; it < p.epochs; ++it) {
        SCOPED_TRACE("iteration " + std::to_string(it));
        const bool moreCpu = onCpu.step(cpu, data);
        // The GPU trainer is given no cells of its own: every step runs over the device's.
        EXPECT_EQ(onGpu.step(gpu, TrainingData{nullptr, 0, d}), moreCpu);
        EXPECT_DOUBLE_EQ(onGpu.progress(), onCpu.progress());
        expectSameLandmarks(gpu, cpu);
        EXPECT_TRUE(std::equal(locked.begin(), locked.end(), gpu.highRow(5)));
        // What the device did, step by step (the app's --bench-frames figures).
        expectFigures(steps->figures(), it + 1, n);
    }
    EXPECT_FALSE(onGpu.step(gpu, data));
}

TEST(CudaWholeDataTraining, BatchSomOverEveryCellFollowsTheCpuTrainer) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 5000, d = 6, side = 5, g = side * side;
    const auto x = randomPoints(n, d, 111, 5);
    LandmarkModel cpu = sampleModel(x, n, d, g, 112);
    for (size_t j = 0; j < g; ++j)
        cpu.low[2 * j] = float(j % side), cpu.low[2 * j + 1] = float(j / side);
    cpu.locked[7] |= kLockHigh;
    cpu.touch();
    LandmarkModel gpu = cpu;
    const std::vector<float> locked(cpu.highRow(7), cpu.highRow(7) + d);
    auto search = makeCpuNearestSearch();
    const TrainingData data{x.data(), n, d};
    SomParams p;
    p.epochs = 4;
    p.stepPoints = n;  // one whole epoch per CPU step, as the GPU's
    p.neighbourhood = Neighbourhood::Gaussian;
    BatchSomTrainer onCpu(p, *search), onGpu(p, *search);
    auto steps = gpuSteps(x, n, d);
    ASSERT_TRUE(steps);
    ASSERT_TRUE(onGpu.useWholeData(steps.get()));
    for (size_t epoch = 0; epoch < p.epochs; ++epoch) {
        SCOPED_TRACE("epoch " + std::to_string(epoch));
        EXPECT_EQ(onGpu.radius(), onCpu.radius());
        const bool moreCpu = onCpu.step(cpu, data);
        EXPECT_EQ(onGpu.step(gpu, TrainingData{nullptr, 0, d}), moreCpu);
        EXPECT_DOUBLE_EQ(onGpu.progress(), onCpu.progress());
        expectSameLandmarks(gpu, cpu);
        EXPECT_TRUE(std::equal(locked.begin(), locked.end(), gpu.highRow(7)));
        expectFigures(steps->figures(), epoch + 1, n);
    }
}

}  // namespace
}  // namespace sepal::test
