// The trainers over every cell on the GPU (Backend::wholeData, a cuda::TrainingStep behind core's
// WholeDataSteps) against the same trainers on the CPU: Lloyd's k-means and the batch SOM give
// the same landmarks within float tolerance, step after step, and locked landmarks stay put.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "backend/backends.h"
#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/batch_som_trainer.h"
#include "core/train/lloyd_trainer.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_projector.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/training_step.h"
#include "gpu_test_support.h"

namespace sepal::test {
namespace {

/// The CUDA backend's whole-data steps over the points (the test fails without them).
std::unique_ptr<WholeDataSteps> gpuSteps(const std::vector<float>& x, size_t n, size_t d) {
    Backend backend = makeBackend("cuda");
    EXPECT_TRUE(backend.wholeData) << "the CUDA backend offers no whole-data steps";
    if (!backend.wholeData) return nullptr;
    return backend.wholeData(TrainingCells{x.data(), n, d});
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

/// Rows `rows` of the n x d points, copied.
std::vector<float> rowsOf(const std::vector<float>& x, size_t d, const std::vector<size_t>& rows) {
    std::vector<float> out;
    for (size_t r : rows)
        out.insert(out.end(), x.begin() + long(r * d), x.begin() + long((r + 1) * d));
    return out;
}

// The cells a projector keeps on the device (rows padded to the stride: d 12 in 16) are copied or
// gathered there: the same cells as uploading them from the host, so the same winners, and the
// listed rows the same as a copy of those rows.
TEST(CudaWholeDataTraining, TheProjectorsCellsCopiedOnTheDeviceAreTheHostsCells) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 7001, d = 12, g = 40;
    const auto x = randomPoints(n, d, 121, 6);
    const auto l = randomPoints(g, d, 122, 6);
    cuda::CudaProjector projector;
    projector.setPoints(x.data(), n, d);
    const float* resident = projector.residentRows(x.data(), n, d);
    ASSERT_NE(resident, nullptr);
    EXPECT_EQ(projector.residentRows(x.data(), n - 1, d), nullptr);  // other cells
    EXPECT_EQ(projector.residentRows(x.data() + d, n, d), nullptr);
    std::vector<size_t> inside;
    for (size_t i = 2; i < n; i += 3) inside.push_back(i);
    const auto y = rowsOf(x, d, inside);

    cuda::TrainingStep uploaded(x.data(), n, d);
    cuda::TrainingStep copied(TrainingCells{x.data(), n, d}, resident);
    cuda::TrainingStep listedUploaded(y.data(), inside.size(), d);
    cuda::TrainingStep listedFromHost(TrainingCells{x.data(), n, d, &inside}, nullptr);
    cuda::TrainingStep listedGathered(TrainingCells{x.data(), n, d, &inside}, resident);
    EXPECT_EQ(copied.count(), n);
    EXPECT_EQ(listedGathered.count(), inside.size());
    const auto all = uploaded.stepKmeans(l.data(), g);
    const auto some = listedUploaded.stepKmeans(l.data(), g);
    const std::vector<uint32_t> allNearest = uploaded.assignment();
    const std::vector<uint32_t> someNearest = listedUploaded.assignment();
    const auto expectSame = [&](cuda::TrainingStep& step, const cuda::StepResult& want,
                                const std::vector<uint32_t>& nearest) {
        const auto got = step.stepKmeans(l.data(), g);
        EXPECT_EQ(step.assignment(), nearest);
        ASSERT_EQ(got.landmarks.size(), want.landmarks.size());
        for (size_t e = 0; e < want.landmarks.size(); ++e)
            EXPECT_NEAR(got.landmarks[e], want.landmarks[e],
                        1e-5 * std::max(1.0f, std::abs(want.landmarks[e])))
                << "landmark " << e / d << ", dimension " << e % d;
    };
    {
        SCOPED_TRACE("every row copied on the device");
        expectSame(copied, all, allNearest);
    }
    {
        SCOPED_TRACE("listed rows gathered on the host");
        expectSame(listedFromHost, some, someNearest);
    }
    {
        SCOPED_TRACE("listed rows gathered on the device");
        expectSame(listedGathered, some, someNearest);
    }
    for (std::vector<size_t> beyond : {std::vector<size_t>{0, n}, std::vector<size_t>{n, 0}})
        EXPECT_THROW(cuda::TrainingStep(TrainingCells{x.data(), n, d, &beyond}, resident),
                     InputError);
}

// More cells than one slice of the upload and of the gather's indices (2^20 rows): every slice
// lands in its own rows, through the host (padded: d 5 in 8) and through the device.
TEST(CudaWholeDataTraining, CellsBeyondOneSliceLandInTheirRows) {
    SEPAL_REQUIRE_GPU();
    const size_t n = (size_t(1) << 20) + 300000, d = 5, g = 12;
    const auto x = randomPoints(n, d, 141, 5);
    const auto l = randomPoints(g, d, 142, 5);
    std::vector<size_t> inside;
    for (size_t i = 0; i < n; ++i)
        if (i % 10 != 3) inside.push_back(i);
    ASSERT_GT(inside.size(), size_t(1) << 20);
    const auto y = rowsOf(x, d, inside);
    cuda::CudaProjector projector;
    projector.setPoints(x.data(), n, d);
    const float* resident = projector.residentRows(x.data(), n, d);
    ASSERT_NE(resident, nullptr);
    cuda::TrainingStep all(x.data(), n, d), some(y.data(), inside.size(), d);
    all.stepKmeans(l.data(), g);
    some.stepKmeans(l.data(), g);
    cuda::TrainingStep allFromDevice(TrainingCells{x.data(), n, d}, resident);
    cuda::TrainingStep someFromHost(TrainingCells{x.data(), n, d, &inside}, nullptr);
    cuda::TrainingStep someFromDevice(TrainingCells{x.data(), n, d, &inside}, resident);
    allFromDevice.stepKmeans(l.data(), g);
    someFromHost.stepKmeans(l.data(), g);
    someFromDevice.stepKmeans(l.data(), g);
    EXPECT_EQ(allFromDevice.assignment(), all.assignment());
    EXPECT_EQ(someFromHost.assignment(), some.assignment());
    EXPECT_EQ(someFromDevice.assignment(), some.assignment());
}

// The backend's factory takes the cells from its projector only where the caller vouches that
// the projector holds them as they are (TrainingCells::resident: the app's data version), says
// so, and uploads them from the host otherwise, and where the sampled rows show values changed
// in place at the same address (the last row, which the sample always reads).
TEST(CudaWholeDataTraining, TheBackendCopiesItsProjectorsCellsOnlyWhereTheCallerVouches) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 5000, d = 9, g = 16;
    auto x = randomPoints(n, d, 131, 4);
    Backend backend = makeBackend("cuda");
    ASSERT_TRUE(backend.resident && backend.wholeData);
    const LandmarkModel start = sampleModel(x, n, d, g, 132);
    const auto lloydOnCpu = [&](const std::vector<float>& cells, const std::vector<size_t>* rows) {
        const std::vector<float> y = rows ? rowsOf(cells, d, *rows) : cells;
        LandmarkModel cpu = start;
        auto search = makeCpuNearestSearch();
        LloydParams p;
        p.epochs = 1;
        LloydTrainer trainer(p, *search);
        trainer.step(cpu, TrainingData{y.data(), y.size() / d, d});
        return cpu;
    };
    const auto lloydOnGpu = [&](WholeDataSteps& steps) {
        LandmarkModel gpu = start;
        auto search = makeCpuNearestSearch();
        LloydParams p;
        p.epochs = 1;
        LloydTrainer trainer(p, *search);
        EXPECT_TRUE(trainer.useWholeData(&steps));
        trainer.step(gpu, TrainingData{nullptr, 0, d});
        return gpu;
    };
    {
        SCOPED_TRACE("nothing resident");
        auto steps = backend.wholeData(TrainingCells{x.data(), n, d});
        EXPECT_EQ(steps->origin(), "uploaded from the host");
    }
    backend.resident->setPoints(x.data(), n, d);
    {
        SCOPED_TRACE("resident, but the caller does not vouch for them");
        auto steps = backend.wholeData(TrainingCells{x.data(), n, d});
        EXPECT_EQ(steps->origin(), "uploaded from the host");
    }
    std::vector<size_t> inside;
    for (size_t i = 0; i < n; i += 2) inside.push_back(i);
    for (const std::vector<size_t>* rows : {static_cast<const std::vector<size_t>*>(nullptr),
                                            static_cast<const std::vector<size_t>*>(&inside)}) {
        SCOPED_TRACE(rows ? "the rows inside the gates" : "every row");
        auto steps = backend.wholeData(TrainingCells{x.data(), n, d, rows, true});
        EXPECT_EQ(steps->origin(), "copied from the projection's cells on the device");
        EXPECT_EQ(steps->count(), rows ? inside.size() : n);
        expectSameLandmarks(lloydOnGpu(*steps), lloydOnCpu(x, rows));
    }
    // The last row changed in place, at the same address: the projector's pointer cannot tell,
    // the check of rows spread over the cells (the last among them) can.
    for (size_t t = 0; t < d; ++t) x[(n - 1) * d + t] += 1.0f;
    auto steps = backend.wholeData(TrainingCells{x.data(), n, d, nullptr, true});
    EXPECT_EQ(steps->origin(),
              "uploaded from the host: the projection's cells on the device are not these");
    expectSameLandmarks(lloydOnGpu(*steps), lloydOnCpu(x, nullptr));
}

}  // namespace
}  // namespace sepal::test
