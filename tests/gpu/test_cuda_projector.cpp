// GPU projection against the reference fixtures and the host oracle; caching, streaming, errors.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "core/embedsom/kernel_choice.h"
#include "core/knn/nearest_search.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"
#include "cuda/device_buffer.h"
#include "cuda/kernel_registry.h"
#include "gpu_test_support.h"
#include "test_paths.h"

namespace sepal::test {
namespace {

/// Every kernel of the registry, by name.
std::vector<const char*> allKernels() {
    std::vector<const char*> names;
    for (const auto& entry : cuda::kernelRegistry()) names.push_back(entry.name);
    return names;
}

/// False for the bitonic baselines, which take every shape with k < 1024; the others decline
/// shapes beyond their limits (auto then takes another).
bool mayDecline(const std::string& kernel) {
    return kernel.rfind("bitonic", 0) != 0;
}

/// The projection of x by `kernel`, or nothing when the kernel declined the shape (InputError;
/// its message in `declined`).
std::optional<std::vector<float>> projectWith(const char* kernel, const std::vector<float>& x,
                                              size_t n, size_t d, const LandmarkModel& model,
                                              const EmbedParams& params, std::string& declined) {
    cuda::CudaProjector projector(kernel);
    std::vector<float> y(n * 2, NAN);
    try {
        projector.project(x.data(), n, d, model, params, y.data());
    } catch (const InputError& e) {
        declined = e.what();
        return std::nullopt;
    }
    return y;
}

TEST(CudaFixtures, EveryKernelMatchesTheReference) {
    SEPAL_REQUIRE_GPU();
    const auto root = sharedDataDir() / "embedsom";
    if (!std::filesystem::exists(root)) GTEST_SKIP() << sharedDataMissing(root);
    int cases = 0, tableCases = 0, partsCases = 0;
    for (const auto& entry : std::filesystem::directory_iterator(root)) {
        const auto dir = entry.path();
        std::ifstream in(dir / "params.json");
        const auto j = nlohmann::json::parse(in);
        const size_t n = j["n"], d = j["d"], g = j["g"];
        EmbedParams params;
        params.k = j["k"];
        params.smooth = j["smooth"];
        params.adjust = j["adjust"];
        const auto x = readF32(dir / "X.f32");
        LandmarkModel model;
        model.resize(g, d);
        model.high = readF32(dir / "L.f32");
        model.low = readF32(dir / "l.f32");
        model.touch();
        const auto ref = readF32(dir / "Y.f32");
        ASSERT_EQ(x.size(), n * d) << dir;
        const double extent = extentOf(model.low);
        for (const char* kernel : allKernels()) {
            std::string declined;
            const auto y = projectWith(kernel, x, n, d, model, params, declined);
            if (!y) {
                // The tensor kernels take 5 <= d <= 64 only (tensor+table also k <= 16 and
                // g <= 256 or so); every other case must run.
                const bool table = std::string(kernel) == "tensor+table";
                EXPECT_EQ(std::string(kernel).rfind("tensor", 0), 0u)
                    << dir.filename() << ": " << declined;
                EXPECT_TRUE(d < 5 || d > 64 || (table && (params.k > 16 || g > 256)))
                    << dir.filename() << ": " << declined;
                continue;
            }
            if (std::string(kernel) == "tensor+table") ++tableCases;
            if (std::string(kernel) == "tensor+parts") ++partsCases;
            const auto err = pointErrors(*y, ref);
            EXPECT_LE(err.back(), 1e-4 * extent) << dir.filename() << " " << kernel;
            EXPECT_LE(err[err.size() / 2], 1e-5 * extent) << dir.filename() << " " << kernel;
        }
        ++cases;
    }
    EXPECT_GE(cases, 5);
    EXPECT_GE(tableCases, 2) << "tensor+table ran on too few fixture cases to be tested";
    EXPECT_GE(partsCases, 6) << "tensor+parts ran on too few fixture cases to be tested";
}

struct Shape {
    size_t n, d, g;
    int k;
    int clusters;
};

class CudaVsHost : public ::testing::TestWithParam<Shape> {};

TEST_P(CudaVsHost, EveryKernelMatchesTheOracle) {
    SEPAL_REQUIRE_GPU();
    const Shape s = GetParam();
    const auto x = randomPoints(s.n, s.d, 11 + uint32_t(s.n), s.clusters);
    const auto train = randomPoints(std::max<size_t>(s.g, 64), s.d, 5, s.clusters);
    const LandmarkModel model = sampleModel(train, std::max<size_t>(s.g, 64), s.d, s.g, 7);
    EmbedParams params;
    params.k = s.k;
    const auto ref = hostEmbedSom(x, s.n, s.d, model, params);
    std::vector<float> cpu(s.n * 2);
    makeReferenceProjector()->project(x.data(), s.n, s.d, model, params, cpu.data());
    const double extent = extentOf(model.low);
    for (const char* kernel : allKernels()) {
        cuda::CudaProjector projector(kernel);
        std::vector<float> y(s.n * 2, NAN);
        ProjectionReport report;
        try {
            report = projector.project(x.data(), s.n, s.d, model, params, y.data());
        } catch (const InputError& e) {
            EXPECT_TRUE(mayDecline(kernel)) << kernel << ": " << e.what();
            continue;
        }
        if (s.n == 0) continue;
        // Against the double-precision oracle (float32 rounding shows on ill-conditioned points).
        const auto err = pointErrors(y, ref);
        EXPECT_LE(err.back(), 1e-2 * extent) << kernel;
        EXPECT_LE(err[err.size() / 2], 1e-4 * extent) << kernel;
        const auto errCpu = pointErrors(y, cpu);  // against the CPU reference projector
        EXPECT_LE(errCpu.back(), 1e-3 * extent) << kernel << " vs CPU";
        EXPECT_LE(errCpu[errCpu.size() / 2], 1e-5 * extent) << kernel << " vs CPU";
        EXPECT_EQ(report.nonFinitePoints, 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaVsHost,
                         ::testing::Values(Shape{0, 8, 16, 5, 0}, Shape{1, 8, 16, 5, 0},
                                           Shape{129, 3, 10, 10, 0},     // k = g
                                           Shape{1000, 16, 64, 8, 4},    // clustered
                                           Shape{4099, 32, 256, 16, 0},  // headline shape
                                           Shape{777, 39, 200, 20, 6}, Shape{300, 64, 1024, 32, 0},
                                           Shape{200, 32, 128, 64, 0},
                                           Shape{500, 16, 256, 40, 3},   // lists past 32 entries
                                           Shape{150, 128, 300, 30, 5},  // d = 128
                                           Shape{100, 100, 500, 12, 0},
                                           Shape{64, 16, 4096, 65, 8},  // g = 4096, k > 64
                                           Shape{50, 16, 80, 80, 0}),   // k = g > 64
                         [](const ::testing::TestParamInfo<Shape>& info) {
                             const Shape& s = info.param;
                             return "n" + std::to_string(s.n) + "_d" + std::to_string(s.d) + "_g" +
                                    std::to_string(s.g) + "_k" + std::to_string(s.k) +
                                    (s.clusters ? "_clustered" : "");
                         });

TEST(CudaProjector, ResidentAndStreamedAgreeAndModelChangesAreSeen) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 5000, d = 16, g = 100;
    const auto x = randomPoints(n, d, 3, 5);
    LandmarkModel model = sampleModel(x, n, d, g, 4);
    EmbedParams params;
    cuda::CudaProjector projector("auto");
    std::vector<float> streamed(n * 2), resident(n * 2), moved(n * 2);
    projector.project(x.data(), n, d, model, params, streamed.data());
    projector.setPoints(x.data(), n, d);
    EXPECT_EQ(projector.residentCount(), n);
    projector.project(x.data(), n, d, model, params, resident.data());
    EXPECT_EQ(streamed, resident);
    for (size_t i = 0; i < g; ++i) model.low[2 * i] *= 2.0f;  // same version: content decides
    projector.project(x.data(), n, d, model, params, moved.data());
    const auto ref = hostEmbedSom(x, n, d, model, params);
    EXPECT_LE(pointErrors(moved, ref).back(), 1e-3 * extentOf(model.low));
    EXPECT_NE(moved, resident);
}

TEST(CudaProjector, RangesOfTheResidentCellsGiveTheWholeProjectionsBits) {
    // The app's training frames project the resident cells a range at a time: each range's
    // rows must be what a projection of every cell writes there, and no other row may change.
    SEPAL_REQUIRE_GPU();
    const size_t n = 20000, d = 16, g = 256;
    auto x = randomPoints(n, d, 31, 6);
    x[9000 * d + 3] = NAN;  // placed from its neighbours, inside a range
    const LandmarkModel model = sampleModel(x, n, d, g, 32);
    EmbedParams params;
    params.k = 16;  // the table projection's largest
    const std::vector<std::pair<size_t, size_t>> ranges = {
        {0, 7000}, {7000, 1}, {7001, 5000}, {12001, 7999}};
    // Ranges in one piece each, and in chunks of 1500 cells (a long range's lists are bounded).
    for (const size_t chunk : {size_t(0), size_t(1500)})
        for (const char* kernel : {"tensor+table", "tensor+parts", "fused", "auto"}) {
            SCOPED_TRACE("chunks of " + std::to_string(chunk) + " cells (0: one)");
            cuda::CudaProjector projector(kernel);
            projector.setStreamChunk(chunk);
            projector.setPoints(x.data(), n, d);
            cuda::DeviceBuffer<float> whole, parts;
            const std::vector<float> sentinel(2 * n, 12345.0f);
            cuda::uploadVector(whole, sentinel);
            cuda::uploadVector(parts, sentinel);
            projector.projectToDevice(model, params, whole.get());
            const std::string wholeKernel = projector.lastKernelName();
            std::vector<float> expected(2 * n), got(2 * n);
            SEPAL_CUDA_CHECK(
                cudaMemcpy(expected.data(), whole.get(), 2 * n * 4, cudaMemcpyDeviceToHost));
            for (const auto& [begin, count] : ranges) {
                SCOPED_TRACE(std::string(kernel) + ": cells " + std::to_string(begin) + " + " +
                             std::to_string(count));
                const auto report =
                    projector.projectRangeToDevice(model, params, begin, count, parts.get());
                EXPECT_EQ(projector.lastProjected(), count);
                EXPECT_EQ(report.nonFinitePoints, begin <= 9000 && 9000 < begin + count ? 1u : 0u);
                SEPAL_CUDA_CHECK(
                    cudaMemcpy(got.data(), parts.get(), 2 * n * 4, cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < 2 * n; ++i) {
                    const size_t cell = i / 2;
                    if (cell >= begin && cell < begin + count) {
                        ASSERT_EQ(got[i], expected[i]) << kernel << " cell " << cell;
                    } else if (cell >= begin + count) {
                        ASSERT_EQ(got[i], 12345.0f)
                            << kernel << ": cell " << cell << " changed, outside " << begin << "+"
                            << count;
                    }
                }
            }
            // The ranges ran the kernel the whole projection ran (auto: the same class of shape).
            EXPECT_EQ(projector.lastKernelName(), wholeKernel) << kernel;
            EXPECT_EQ(got, expected) << kernel;
            EXPECT_THROW(projector.projectRangeToDevice(model, params, 19999, 2, parts.get()),
                         InputError);
            EXPECT_THROW(projector.projectRangeToDevice(model, params, n + 1, 0, parts.get()),
                         InputError);
        }
}

TEST(CudaProjector, ARangeLeavesTheNeighbourCacheToPlaceEveryCellAgain) {
    // The app keeps the lists and projects into the projector's own buffer. A range placed there
    // by other landmarks (a training frame) must not let a later change of 2D positions alone
    // re-project only the cells the cache holds due: every cell is placed again from the lists.
    SEPAL_REQUIRE_GPU();
    const size_t n = 20000, d = 16, g = 256;
    const auto x = randomPoints(n, d, 41, 6);
    const LandmarkModel model = sampleModel(x, n, d, g, 42);
    EmbedParams params;
    params.k = 16;
    cuda::CudaProjector cached("tensor+table"), plain("tensor+table");
    cached.keepNeighbourLists(true);
    cached.setPoints(x.data(), n, d);
    plain.setPoints(x.data(), n, d);
    float* own = cached.ownPositions();
    cached.projectToDevice(model, params, own);
    ASSERT_EQ(cached.cacheState().second, "") << "no lists kept";
    LandmarkModel trained = model;
    for (float& v : trained.high) v *= 1.01f;
    trained.touch();
    cached.projectRangeToDevice(trained, params, 5000, 3000, own);
    LandmarkModel moved = model;
    moved.low[0] += 0.3f;
    moved.touch();
    cached.projectToDevice(moved, params, own);
    EXPECT_EQ(cached.lastProjected(), n) << "only the cells the cache held due";
    cuda::DeviceBuffer<float> expectedDevice;
    expectedDevice.reserve(2 * n);
    plain.projectToDevice(moved, params, expectedDevice.get());
    std::vector<float> got(2 * n), expected(2 * n);
    SEPAL_CUDA_CHECK(cudaMemcpy(got.data(), own, 2 * n * 4, cudaMemcpyDeviceToHost));
    SEPAL_CUDA_CHECK(
        cudaMemcpy(expected.data(), expectedDevice.get(), 2 * n * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, expected);
}

TEST(CudaProjector, DeferredCellsAWarpEachTakeTheBitsOfAThreadEach) {
    // The app's default recipe (smooth -2, adjust 3) leaves about 4 % of these cells
    // ill-conditioned (909 of 20,000 on the CPU backend at k 16): the projections queue them,
    // and the queue's warp-per-cell solve must place them as the thread-per-cell one does, bit
    // for bit, for the table projection (k 16) and the list projection (k 20, and k 32: 496
    // pairs, four chunks of the warp kernel's terms).
    SEPAL_REQUIRE_GPU();
    const size_t n = 20000, d = 16, g = 256;
    const auto x = randomPoints(n, d, 51);
    const LandmarkModel model = sampleModel(x, n, d, g, 52);
    // Each run on the resident cells, timed, so that the queue's count is read back.
    auto projectWith = [&](const char* kernel, const EmbedParams& params, const char* warp,
                           std::vector<float>& out) {
        const ScopedEnv deferred("SEPAL_DEFERRED_WARP", warp);
        cuda::CudaProjector projector(kernel);
        projector.enableTiming(true);
        projector.setPoints(x.data(), n, d);
        projector.projectToHost(model, params, out.data());
        return projector.lastTimes().deferredCells;
    };
    std::vector<float> ref(2 * n);
    for (const auto& [kernel, k] : {std::pair<const char*, int>{"tensor+table", 16},
                                    std::pair<const char*, int>{"tensor+parts", 20},
                                    std::pair<const char*, int>{"tensor+parts", 32}}) {
        SCOPED_TRACE(std::string(kernel) + ", k " + std::to_string(k));
        EmbedParams params;
        params.k = k;
        params.smooth = -2.0f;
        params.adjust = 3.0f;
        std::vector<float> warp(2 * n), thread(2 * n);
        const auto queuedWarp = projectWith(kernel, params, "1", warp);
        const auto queuedThread = projectWith(kernel, params, "0", thread);
        EXPECT_GT(queuedWarp, 200u) << "too few ill-conditioned cells to compare";
        EXPECT_GT(queuedThread, 200u);
        EXPECT_EQ(std::memcmp(warp.data(), thread.data(), warp.size() * sizeof(float)), 0);
        makeReferenceProjector()->project(x.data(), n, d, model, params, ref.data());
        EXPECT_LE(pointErrors(warp, ref).back(), 1e-4 * extentOf(model.low));
    }
}

TEST(CudaProjector, NearDuplicateLandmarksTakeTheExactFormOfD) {
    // Landmarks 0 and 1 lie 1e-3 apart in 16 dimensions: for the points that have both among
    // their neighbours, (d_u - d_v) c_uv cancels, and every kernel must take the O(d) form of D
    // for that pair (a ratio of about 1.6e7, past kResidualRatio: the table projection's rare
    // second pass). The O(1) form is off by percents.
    SEPAL_REQUIRE_GPU();
    const size_t n = 3000, d = 16, g = 64;
    const auto x = randomPoints(n, d, 21);
    LandmarkModel model = sampleModel(x, n, d, g, 22);
    for (size_t t = 0; t < d; ++t) model.high[d + t] = model.high[t] + (t == 0 ? 1e-3f : 0.0f);
    model.low[2] = model.low[0] + 0.5f;
    model.low[3] = model.low[1];
    model.touch();
    EmbedParams params;
    std::vector<float> cpu(n * 2);
    makeReferenceProjector()->project(x.data(), n, d, model, params, cpu.data());
    const double extent = extentOf(model.low);
    for (const char* kernel : allKernels()) {
        std::string declined;
        const auto y = projectWith(kernel, x, n, d, model, params, declined);
        if (!y) {
            EXPECT_TRUE(mayDecline(kernel)) << kernel << ": " << declined;
            continue;
        }
        const auto err = pointErrors(*y, cpu);
        EXPECT_LE(err.back(), 1e-3 * extent) << kernel;
        EXPECT_LE(err[err.size() / 2], 1e-5 * extent) << kernel;
    }
}

TEST(CudaProjector, NonFinitePointsAreCountedAndPlaced) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 300, d = 8, g = 30;
    auto x = randomPoints(n, d, 8);
    const LandmarkModel model = sampleModel(x, n, d, g, 9);
    x[5 * d + 2] = NAN;
    x[17 * d] = INFINITY;
    for (const char* kernel : allKernels()) {
        cuda::CudaProjector projector(kernel);
        std::vector<float> y(n * 2);
        const auto report = projector.project(x.data(), n, d, model, {}, y.data());
        EXPECT_EQ(report.nonFinitePoints, 2u) << kernel;
        for (float v : y) ASSERT_TRUE(std::isfinite(v)) << kernel;
    }
}

TEST(CudaProjector, TheListsNearestLandmarksAreTheCpuSearchs) {
    // Cells and landmarks on a small integer grid, with landmark 1 a copy of landmark 0: many
    // cells have exact ties for their nearest landmark, which must go to the lower index as the
    // CPU search breaks them (cohort labels come from these lists). Cells with NaN keep what
    // the caller had. Beyond 2^21 cells the points stream in several chunks, each with its own
    // lists and its own queue of NaN cells.
    SEPAL_REQUIRE_GPU();
    const size_t d = 8, g = 64;
    LandmarkModel model;
    model.resize(g, d);
    for (size_t j = 0; j < g; ++j) {
        for (size_t t = 0; t < d; ++t) model.high[j * d + t] = float((j * 13 + t * 5 + j * t) % 4);
        model.low[2 * j] = float(j % 8);
        model.low[2 * j + 1] = float(j / 8) + 0.25f * float(j % 3);
    }
    for (size_t t = 0; t < d; ++t) model.high[d + t] = model.high[t];
    model.touch();
    const size_t chunked = (size_t(1) << 21) + 3000;
    for (const size_t n : {size_t(3000), chunked}) {
        std::vector<float> x(n * d);
        for (size_t i = 0; i < x.size(); ++i) x[i] = float((i * 7919 + i / d * 31) % 4);
        std::vector<size_t> nanCells = {7};
        if (n == chunked) nanCells.push_back((size_t(1) << 21) + 17);
        for (size_t c : nanCells) x[c * d + 3] = NAN;
        std::vector<uint32_t> expected(n);
        std::vector<float> sqdist(n);
        makeCpuNearestSearch()->search(x.data(), n, model.high.data(), g, d, 1, expected.data(),
                                       sqdist.data());
        int kernelsWithLists = 0;
        for (const char* kernel : allKernels()) {
            cuda::CudaProjector projector(kernel);
            std::vector<float> y(n * 2);
            std::vector<uint32_t> nearest(n, 777);
            bool found = false;
            try {
                projector.projectFindingNearest(x.data(), n, d, model, {}, y.data(), nearest.data(),
                                                found);
            } catch (const InputError& e) {
                EXPECT_TRUE(mayDecline(kernel)) << kernel << ": " << e.what();
                continue;
            }
            if (!found) continue;  // a one-pass kernel keeps no lists
            ++kernelsWithLists;
            size_t wrong = 0;
            for (size_t c : nanCells) {
                EXPECT_EQ(nearest[c], 777u) << kernel << ", n = " << n << ", cell " << c;
                expected[c] = 777;
            }
            for (size_t i = 0; i < n; ++i) wrong += nearest[i] != expected[i];
            EXPECT_EQ(wrong, 0u) << kernel << ", n = " << n;
        }
        EXPECT_GE(kernelsWithLists, 2);  // the bitonic ones at least (the tensor ones need sm_80)
    }
}

TEST(CudaProjector, DuplicatePointsFallBackToTheirNeighbours) {
    SEPAL_REQUIRE_GPU();
    const size_t d = 5, g = 12;
    std::vector<float> x(d, 1.0f);
    LandmarkModel model;
    model.resize(g, d);
    for (size_t j = 0; j < g; ++j) {
        for (size_t t = 0; t < d; ++t) model.high[j * d + t] = 1.0f;  // all equal to the point
        model.low[2 * j] = float(j);
        model.low[2 * j + 1] = 0.0f;
    }
    model.touch();
    for (const char* kernel : allKernels()) {
        cuda::CudaProjector projector(kernel);
        float y[2];
        const auto report = projector.project(x.data(), 1, d, model, {}, y);
        EXPECT_EQ(report.degeneratePoints, 1u) << kernel;
        EXPECT_TRUE(std::isfinite(y[0]) && std::isfinite(y[1])) << kernel;
        EXPECT_GE(y[0], 0.0f);
        EXPECT_LE(y[0], float(g - 1));
    }
}

TEST(CudaProjector, AutoFollowsItsFixedRuleForFewPoints) {
    // 200 points: too few for a shape class (kernel_shape_class.h), so no measurement; the rule
    // of the H100's grid chooses, and the projector says so.
    SEPAL_REQUIRE_GPU();
    auto kernelFor = [](size_t d, size_t g, int k) {
        const auto x = randomPoints(200, d, 9, 3);
        const LandmarkModel model = sampleModel(x, 200, d, g, 10);
        EmbedParams params;
        params.k = k;
        cuda::CudaProjector projector("auto");
        std::vector<float> y(400);
        projector.project(x.data(), 200, d, model, params, y.data());
        const AutoChoice how = projector.lastAutoChoice();
        EXPECT_EQ(how.source, "rule");
        EXPECT_EQ(how.shapeClass, "");
        EXPECT_TRUE(how.timings.empty());
        EXPECT_EQ(projector.lastKernel(), projector.lastKernelName() + " (auto: rule)");
        return projector.lastKernelName();
    };
    EXPECT_EQ(kernelFor(16, 1024, 8), "tensor");
    EXPECT_EQ(kernelFor(32, 1024, 16), "tensor+parts");
    EXPECT_EQ(kernelFor(64, 1024, 32), "tensor+parts");  // 200 points: too few to split
    EXPECT_EQ(kernelFor(16, 256, 8), "tensor+table");
    EXPECT_EQ(kernelFor(32, 256, 16), "tensor+table");
    EXPECT_EQ(kernelFor(32, 256, 32), "tensor+parts");
    EXPECT_EQ(kernelFor(64, 256, 8), "tensor+parts");
    EXPECT_EQ(kernelFor(64, 256, 16), "tensor+parts");
    EXPECT_EQ(kernelFor(32, 64, 16), "tensor+table");
    EXPECT_EQ(kernelFor(64, 64, 8), "tensor+table");
    EXPECT_EQ(kernelFor(64, 64, 16), "tensor+parts");
    EXPECT_EQ(kernelFor(64, 64, 32), "fused");
    EXPECT_EQ(kernelFor(4, 1024, 16), "fused");  // d <= 4: beyond the tensor kernels
    EXPECT_EQ(kernelFor(16, 256, 80), "bitonic+registers");
}

TEST(CudaSplit, SideBySideGivesTheSameBitsAsOneAfterTheOther) {
    // tensor+split runs tensor+parts' kernels on chunks, the k-NN and the projection on their own
    // multiprocessors: the result must be the same bits. 150001 points make several chunks and a
    // short last one; the non-finite points lie in the first, a middle and the last chunk, so
    // their whole-set indices must survive the chunking.
    SEPAL_REQUIRE_GPU();
    const size_t n = 150001, d = 50, g = 1024;
    auto x = randomPoints(n, d, 31);
    const LandmarkModel model = sampleModel(x, n, d, g, 32);
    const size_t bad[] = {3, 75000, n - 1};
    x[bad[0] * d + 7] = NAN;
    x[bad[1] * d] = INFINITY;
    for (size_t t = 0; t < d; ++t) x[bad[2] * d + t] = NAN;
    EmbedParams params;
    params.k = 32;
    cuda::CudaProjector split("tensor+split"), parts("tensor+parts");
    split.setPoints(x.data(), n, d);
    parts.setPoints(x.data(), n, d);
    std::vector<float> side(n * 2, NAN), after(n * 2, NAN), streamed(n * 2, NAN);
    const auto sideReport = split.projectToHost(model, params, side.data());
    ASSERT_EQ(split.lastKernel(), "tensor+split") << split.splitUnavailable();
    const auto afterReport = parts.projectToHost(model, params, after.data());
    EXPECT_EQ(std::memcmp(side.data(), after.data(), side.size() * sizeof(float)), 0);
    EXPECT_EQ(sideReport.nonFinitePoints, 3u);
    EXPECT_EQ(sideReport.degeneratePoints, afterReport.degeneratePoints);
    for (size_t p : bad) {
        EXPECT_TRUE(std::isfinite(side[2 * p]) && std::isfinite(side[2 * p + 1])) << p;
        EXPECT_EQ(side[2 * p], after[2 * p]) << p;
    }
    // The streamed path (a host pointer the projector has not seen) splits its chunks too.
    const std::vector<float> copy = x;
    split.project(copy.data(), n, d, model, params, streamed.data());
    EXPECT_EQ(std::memcmp(streamed.data(), after.data(), side.size() * sizeof(float)), 0);
}

TEST(CudaSplit, AutoTakesTheFasterOfSplitAndPartsAsMeasuredOnThisGpu) {
    // Where tensor+split and tensor+parts both take the shape, auto times them (and the others
    // that take it) on this GPU and runs the fastest: no fixed rule decides (on the H200 at
    // d 64, g 1024, k 32 tensor+parts was the faster, on the H100 tensor+split).
    SEPAL_REQUIRE_GPU();
    const size_t n = size_t(1) << 18, d = 64;
    const auto x = randomPoints(n, d, 41);
    auto check = [&](size_t g, int k) {
        const LandmarkModel model = sampleModel(x, n, d, g, 42);
        EmbedParams params;
        params.k = k;
        cuda::CudaProjector projector("auto");
        projector.setPoints(x.data(), n, d);
        std::vector<float> y(n * 2);
        projector.projectToHost(model, params, y.data());
        const AutoChoice how = projector.lastAutoChoice();
        const std::string ran = projector.lastKernelName();
        SCOPED_TRACE("g " + std::to_string(g) + ", k " + std::to_string(k) + ": " + ran);
        // "own-cells": the class's two fastest came close and were timed again on these cells.
        EXPECT_TRUE(how.source == "measured" || how.source == "cached" || how.source == "own-cells")
            << how.source;
        EXPECT_EQ(ran, fastestKernel(how.timings));
        EXPECT_EQ(projector.lastKernel(), ran + " (auto: " + how.source + ")");
        const bool onCells = how.source == "own-cells";
        bool timedParts = false, timedSplit = false;
        for (const KernelTiming& t : how.timings) {
            EXPECT_GT(t.ms, 0.0) << t.kernel;
            timedParts = timedParts || t.kernel == std::string("tensor+parts");
            timedSplit = timedSplit || t.kernel == std::string("tensor+split");
        }
        EXPECT_TRUE(timedParts || onCells);
        // Without partitions tensor+split runs as tensor+parts: it is not timed then.
        cuda::CudaProjector split("tensor+split");
        split.setPoints(x.data(), 1024, d);
        split.projectToHost(model, params, y.data());
        if (!onCells)
            EXPECT_EQ(timedSplit, split.splitUnavailable().empty()) << split.splitUnavailable();
        // The next projection of the class finds the choice kept.
        projector.projectToHost(model, params, y.data());
        EXPECT_EQ(projector.lastAutoChoice().source, onCells ? "own-cells" : "cached");
        EXPECT_EQ(projector.lastKernelName(), ran);
    };
    check(1024, 32);
    check(1024, 16);
    check(256, 32);
}

TEST(CudaProjector, BadInputsGiveClearErrors) {
    EXPECT_THROW(cuda::CudaProjector("nonsense"), InputError);
    SEPAL_REQUIRE_GPU();
    const auto x = randomPoints(10, 4, 1);
    const LandmarkModel model = sampleModel(x, 10, 4, 8, 2);
    cuda::CudaProjector projector;
    std::vector<float> y(20);
    EmbedParams tooMany;
    tooMany.k = 9;
    EXPECT_THROW(projector.project(x.data(), 10, 4, model, tooMany, y.data()), InputError);
    EXPECT_THROW(projector.project(x.data(), 10, 5, model, {}, y.data()), InputError);
    EXPECT_THROW(projector.projectToDevice(model, {}, nullptr), InputError);
}

}  // namespace
}  // namespace sepal::test
