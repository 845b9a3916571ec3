// auto's measured choice of a CUDA kernel (auto_kernel.h): the fastest of the kernels that take
// a shape, timed once per GPU and shape class, then kept in memory and in the cache file; a
// close call timed again on the caller's cells. Each
// test has a cache file of its own; the process's cache is in memory only (kernel_cache_env.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/embedsom/kernel_choice.h"
#include "core/embedsom/kernel_choice_cache.h"
#include "core/embedsom/kernel_choice_file.h"
#include "core/embedsom/kernel_shape_class.h"
#include "cuda/auto_kernel.h"
#include "cuda/cuda_projector.h"
#include "cuda/kernel_registry.h"
#include "cuda/kernel_sample.h"
#include "gpu_test_support.h"
#include "unit/fresh_dir.h"

namespace sepal::test {
namespace {

/// The shape of a projection of n points on the current device.
cuda::KernelShape deviceShape(size_t n, size_t d, int g, int k) {
    cuda::ProjectionArgs a;
    a.n = n;
    a.dim = int(d);
    a.stride = cuda::paddedDim(d);
    a.g = g;
    a.topn = k;
    a.topnn = k < g ? k + 1 : k;
    return cuda::shapeOf(a);
}

/// Checks that a measured (or kept) choice is the fastest of its timings, that every timing is
/// of a kernel that takes the shape, and that every such kernel was timed (tensor+split only
/// where the device can be split: it runs as tensor+parts otherwise, and is left out).
void expectFastestOfTheCandidates(const cuda::AutoPick& pick, const cuda::KernelShape& shape) {
    std::vector<std::string> candidates;
    for (const cuda::KernelEntry* e : cuda::kernelsTaking(shape)) candidates.emplace_back(e->name);
    EXPECT_EQ(pick.kernel->name, fastestKernel(pick.how.timings));
    EXPECT_GE(pick.how.timings.size() + 1, candidates.size());
    for (const KernelTiming& t : pick.how.timings) {
        EXPECT_NE(std::find(candidates.begin(), candidates.end(), t.kernel), candidates.end())
            << t.kernel;
        EXPECT_GT(t.ms, 0.0) << t.kernel;
    }
    for (const std::string& name : candidates) {
        const bool timed = std::any_of(pick.how.timings.begin(), pick.how.timings.end(),
                                       [&](const KernelTiming& t) { return t.kernel == name; });
        EXPECT_TRUE(timed || name == "tensor+split") << name << " was not timed";
    }
}

TEST(CudaAutoKernel, MeasuresOnceAndTakesTheFastestKernelThatTakesTheShape) {
    SEPAL_REQUIRE_GPU();
    const std::string path = (freshDir("auto_kernel_measure") / "cuda-kernels.json").string();
    KernelChoiceCache cache(path);
    const cuda::KernelShape shape = deviceShape(size_t(1) << 16, 16, 256, 16);
    const cuda::AutoPick first = cuda::chooseAutoKernel(shape, 1.0f, cache);
    EXPECT_EQ(first.how.source, "measured");
    EXPECT_EQ(first.how.shapeClass, "d16 g256 k16 adjust1 n65536");
    expectFastestOfTheCandidates(first, shape);
    // Another n of the class: the kept choice, not a new measurement.
    const cuda::AutoPick second =
        cuda::chooseAutoKernel(deviceShape((size_t(1) << 17) + 5, 16, 256, 16), 1.0f, cache);
    EXPECT_EQ(second.how.source, "cached");
    EXPECT_EQ(second.kernel, first.kernel);
    ASSERT_EQ(second.how.timings.size(), first.how.timings.size());
    for (size_t i = 0; i < first.how.timings.size(); ++i)
        EXPECT_EQ(second.how.timings[i].ms, first.how.timings[i].ms);
    // Another adjust path is another class.
    const cuda::AutoPick other = cuda::chooseAutoKernel(shape, 0.5f, cache);
    EXPECT_EQ(other.how.source, "measured");
    EXPECT_EQ(other.how.shapeClass, "d16 g256 k16 adjust-other n65536");
    expectFastestOfTheCandidates(other, shape);
}

TEST(CudaAutoKernel, TheChoiceRoundTripsThroughTheCacheFile) {
    SEPAL_REQUIRE_GPU();
    const std::string path = (freshDir("auto_kernel_disk") / "cuda-kernels.json").string();
    const cuda::KernelShape shape = deviceShape(size_t(1) << 16, 32, 256, 16);
    cuda::AutoPick measured;
    {
        KernelChoiceCache cache(path);
        measured = cuda::chooseAutoKernel(shape, 1.0f, cache);
        ASSERT_EQ(measured.how.source, "measured");
    }
    std::string why;
    const auto file = readKernelChoiceFile(path, why);
    ASSERT_TRUE(file) << why;
    const KernelChoice& kept = file->at(cuda::currentDeviceKey()).at(measured.how.shapeClass);
    EXPECT_EQ(kept.kernel, measured.kernel->name);
    EXPECT_EQ(kept.points, size_t(1) << 16);
    KernelChoiceCache next(path);  // the next process on this GPU
    const cuda::AutoPick again = cuda::chooseAutoKernel(shape, 1.0f, next);
    EXPECT_EQ(again.how.source, "cached");
    EXPECT_EQ(again.kernel, measured.kernel);
    EXPECT_EQ(again.how.timings.size(), measured.how.timings.size());
    expectFastestOfTheCandidates(again, shape);
}

TEST(CudaAutoKernel, ACorruptCacheFileIsIgnoredThenReplaced) {
    SEPAL_REQUIRE_GPU();
    const std::string path = (freshDir("auto_kernel_corrupt") / "cuda-kernels.json").string();
    std::ofstream(path) << "{\"format\": \"sepal-cuda-kernel-choices\", \"devices\": [[[";
    KernelChoiceCache cache(path);
    const cuda::KernelShape shape = deviceShape(size_t(1) << 16, 16, 64, 8);
    testing::internal::CaptureStderr();
    const cuda::AutoPick pick = cuda::chooseAutoKernel(shape, 1.0f, cache);
    const std::string warned = testing::internal::GetCapturedStderr();
    EXPECT_NE(warned.find("ignoring the CUDA kernel cache"), std::string::npos) << warned;
    EXPECT_EQ(pick.how.source, "measured");
    expectFastestOfTheCandidates(pick, shape);
    std::string why;
    const auto file = readKernelChoiceFile(path, why);
    ASSERT_TRUE(file) << why;
    EXPECT_EQ(file->at(cuda::currentDeviceKey()).at(pick.how.shapeClass).kernel, pick.kernel->name);
}

TEST(CudaAutoKernel, AKeptChoiceOfAKernelThatCannotTakeTheShapeIsMeasuredAgain) {
    SEPAL_REQUIRE_GPU();
    KernelChoiceCache cache("");
    const cuda::KernelShape shape = deviceShape(size_t(1) << 16, 64, 1024, 32);
    KernelChoice stale;
    stale.kernel = "tensor+table";  // refuses d 64, g 1024, k 32 (shared memory, k)
    stale.points = size_t(1) << 16;
    cache.store(cuda::currentDeviceKey(), "d64 g1024 k32 adjust1 n65536", stale);
    const cuda::AutoPick pick = cuda::chooseAutoKernel(shape, 1.0f, cache);
    EXPECT_EQ(pick.how.source, "measured");
    EXPECT_STRNE(pick.kernel->name, "tensor+table");
    expectFastestOfTheCandidates(pick, shape);
}

TEST(CudaAutoKernel, FewPointsAreLeftToTheRuleWithoutAMeasurement) {
    SEPAL_REQUIRE_GPU();
    const std::string path = (freshDir("auto_kernel_few") / "cuda-kernels.json").string();
    KernelChoiceCache cache(path);
    const cuda::KernelShape shape = deviceShape(kMeasuredMinPoints - 1, 64, 1024, 32);
    const cuda::AutoPick pick = cuda::chooseAutoKernel(shape, 1.0f, cache);
    EXPECT_EQ(pick.how.source, "rule");
    EXPECT_EQ(pick.kernel, &cuda::chooseKernel(nullptr, shape));
    EXPECT_TRUE(pick.how.timings.empty());
    EXPECT_FALSE(std::filesystem::exists(path));
}

/// A class's kept choice whose runner-up came `apart` times its time: the shape's first two
/// candidates at 1 and `apart` ms, the rest far behind.
KernelChoice keptChoice(const cuda::KernelShape& shape, double apart) {
    const std::vector<const cuda::KernelEntry*> candidates = cuda::kernelsTaking(shape);
    KernelChoice c;
    c.kernel = candidates.at(0)->name;
    c.points = size_t(1) << 16;
    c.timings = {{candidates.at(0)->name, 1.0}, {candidates.at(1)->name, apart}};
    for (size_t i = 2; i < candidates.size(); ++i) c.timings.push_back({candidates[i]->name, 9.0});
    return c;
}

TEST(CudaAutoKernel, ACloseCallIsTimedAgainOnTheCallersCellsOncePerProcess) {
    SEPAL_REQUIRE_GPU();
    const size_t n = size_t(1) << 16, d = 16, g = 256;
    const cuda::KernelShape shape = deviceShape(n, d, int(g), 16);
    const std::vector<const cuda::KernelEntry*> candidates = cuda::kernelsTaking(shape);
    ASSERT_GE(candidates.size(), 2u);
    const std::string shapeKey = "d16 g256 k16 adjust1 n65536";
    const auto x = randomPoints(n, d, 71, 12);
    int calls = 0;
    size_t asked = 0;
    cuda::OwnCells cells;
    cells.count = n;
    cells.take = [&](size_t count) {
        ++calls;
        asked = count;
        cuda::KernelSample s;
        s.points.assign(x.begin(), x.begin() + count * d);
        s.model = sampleModel(x, n, d, g, 72);
        return s;
    };
    KernelChoiceCache cache("");
    cache.store(cuda::currentDeviceKey(), shapeKey, keptChoice(shape, 1.05));
    const cuda::AutoPick pick = cuda::chooseAutoKernel(shape, 1.0f, cache, cells);
    EXPECT_EQ(pick.how.source, "own-cells");
    EXPECT_EQ(pick.how.shapeClass, shapeKey);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(asked, n);
    // Only the two close ones were timed, each on the cells given, and the faster runs.
    ASSERT_GE(pick.how.timings.size(), 1u);
    ASSERT_LE(pick.how.timings.size(), 2u);
    for (const KernelTiming& t : pick.how.timings) {
        EXPECT_TRUE(t.kernel == candidates[0]->name || t.kernel == candidates[1]->name) << t.kernel;
        EXPECT_GT(t.ms, 0.0);
        EXPECT_NE(t.ms, 1.0);  // a time measured now, not the kept one
    }
    EXPECT_EQ(pick.kernel->name, fastestKernel(pick.how.timings));
    // The process keeps it: the next caller of the class is not timed again, nor a chunk that
    // offers no cells of its own (a range's or a stream's).
    const cuda::AutoPick again = cuda::chooseAutoKernel(shape, 1.0f, cache, cells);
    EXPECT_EQ(again.how.source, "own-cells");
    EXPECT_EQ(again.kernel, pick.kernel);
    cuda::OwnCells chunk = cells;
    chunk.count = 0;
    const cuda::AutoPick chunked = cuda::chooseAutoKernel(shape, 1.0f, cache, chunk);
    EXPECT_EQ(chunked.how.source, "own-cells");
    EXPECT_EQ(chunked.kernel, pick.kernel);
    EXPECT_EQ(calls, 1);
    // The class's own choice is left as it was.
    EXPECT_EQ(cache.find(cuda::currentDeviceKey(), shapeKey)->kernel, candidates[0]->name);
}

TEST(CudaAutoKernel, AClearWinnerOrTooFewCellsKeepTheClasssChoice) {
    SEPAL_REQUIRE_GPU();
    const cuda::KernelShape shape = deviceShape(size_t(1) << 16, 16, 256, 16);
    const std::string shapeKey = "d16 g256 k16 adjust1 n65536";
    int calls = 0;
    cuda::OwnCells cells;
    cells.count = size_t(1) << 16;
    cells.take = [&](size_t count) {
        ++calls;
        return cuda::makeKernelSample(count, 16, 256);
    };
    // The runner-up 30 % behind: no need to ask the cells.
    KernelChoiceCache clear("");
    clear.store(cuda::currentDeviceKey(), shapeKey, keptChoice(shape, 1.3));
    const cuda::AutoPick winner = cuda::chooseAutoKernel(shape, 1.0f, clear, cells);
    EXPECT_EQ(winner.how.source, "cached");
    EXPECT_EQ(calls, 0);
    // A close call, but the caller has fewer cells than the class is measured on (a chunk): the
    // class's choice, every time, with nothing taken.
    cells.count = (size_t(1) << 16) - 1;
    KernelChoiceCache close("");
    const KernelChoice kept = keptChoice(shape, 1.05);
    close.store(cuda::currentDeviceKey(), shapeKey, kept);
    for (int call = 0; call < 3; ++call) {
        const cuda::AutoPick few = cuda::chooseAutoKernel(shape, 1.0f, close, cells);
        EXPECT_EQ(few.how.source, "cached");
        EXPECT_STREQ(few.kernel->name, kept.kernel.c_str());
    }
    EXPECT_EQ(calls, 0);
    // With enough cells the same close call is timed on them.
    cells.count = size_t(1) << 16;
    EXPECT_EQ(cuda::chooseAutoKernel(shape, 1.0f, close, cells).how.source, "own-cells");
    EXPECT_EQ(calls, 1);
}

TEST(CudaAutoKernel, TheProjectorSaysHowAutoChose) {
    // The shape, d 64, g 1024, k 32, where a fixed rule took the slower of two kernels
    // on the H200: the projector runs the measured fastest and says so; a second projector of
    // the class, and the streamed path, find the choice kept.
    SEPAL_REQUIRE_GPU();
    const size_t n = size_t(1) << 16, d = 64, g = 1024;
    const auto x = randomPoints(n, d, 61, 12);
    const LandmarkModel model = sampleModel(x, n, d, g, 62);
    EmbedParams params;
    params.k = 32;
    std::vector<float> y(n * 2);
    cuda::CudaProjector first("auto");
    first.setPoints(x.data(), n, d);
    first.projectToHost(model, params, y.data());
    const AutoChoice how = first.lastAutoChoice();
    // A close call between the class's two fastest is timed again on these cells ("own-cells").
    EXPECT_TRUE(how.source == "measured" || how.source == "cached" || how.source == "own-cells")
        << how.source;
    EXPECT_EQ(how.shapeClass, "d64 g1024 k32 adjust1 n65536");
    EXPECT_EQ(first.lastKernelName(), fastestKernel(how.timings));
    EXPECT_EQ(first.lastKernel(), first.lastKernelName() + " (auto: " + how.source + ")");
    const std::string kept = how.source == "own-cells" ? "own-cells" : "cached";
    cuda::CudaProjector second("auto");
    second.setPoints(x.data(), n, d);
    second.projectToHost(model, params, y.data());
    EXPECT_EQ(second.lastAutoChoice().source, kept);
    EXPECT_EQ(second.lastKernelName(), first.lastKernelName());
    const std::vector<float> copy = x;  // a pointer the projector has not seen: it streams
    second.project(copy.data(), n, d, model, params, y.data());
    EXPECT_EQ(second.lastAutoChoice().source, kept);
    EXPECT_EQ(second.lastKernelName(), first.lastKernelName());
    // A range of the resident cells (a training frame's slice) runs the same kernel.
    second.projectRangeToDevice(model, params, 0, 1000, second.ownPositions());
    EXPECT_EQ(second.lastAutoChoice().source, kept);
    EXPECT_EQ(second.lastKernelName(), first.lastKernelName());
    // A kernel named is not auto's: no choice to report.
    cuda::CudaProjector named("fused");
    named.setPoints(x.data(), n, d);
    named.projectToHost(model, params, y.data());
    EXPECT_EQ(named.lastKernel(), "fused");
    EXPECT_EQ(named.lastAutoChoice().source, "");
}

}  // namespace
}  // namespace sepal::test
