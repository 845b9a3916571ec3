// The resident GPU training step (cuda/training_step.h) against host computations: exact
// nearest landmarks, sums within float tolerance, Lloyd's iterations of the CPU trainer, the
// batch SOM's formula, and the edge cases (g = 1, non-finite points, no points, reuse); the
// nearest-landmark kernel (nearest_landmark.cu) on its hard cases: k-means centroids crowding
// their clusters, equal and nearly equal landmarks, non-finite and far cells.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"
#include "core/train/lloyd_trainer.h"
#include "cuda/landmark_sums.h"
#include "cuda/nearest_landmark.h"
#include "cuda/training_step.h"
#include "gpu_test_support.h"
#include "training_step_checks.h"

namespace sepal::test {
namespace {

struct StepShape {
    size_t n, d, g;
};

class CudaTrainingStep : public ::testing::TestWithParam<StepShape> {};

TEST_P(CudaTrainingStep, KmeansMatchesTheHost) {
    SEPAL_REQUIRE_GPU();
    const auto s = GetParam();
    const auto x = randomPoints(s.n, s.d, 51, 4);
    auto l = randomPoints(s.g, s.d, 52, 4);
    if (s.g > 4) std::copy(l.begin(), l.begin() + s.d, l.begin() + 3 * s.d);  // a tie
    if (s.g > 2)
        for (size_t t = 0; t < s.d; ++t) l[s.d + t] = 1e4f;  // far from everything: empty
    cuda::TrainingStep gpu(x.data(), s.n, s.d);
    EXPECT_EQ(gpu.count(), s.n);
    EXPECT_EQ(gpu.dim(), s.d);
    expectKmeansStep(gpu, x, s.n, s.d, l, s.g);
}

// d 32 g 20: the resident k-NN; d 7: stride 8, narrow rows in the sums; g 1; g 1024 at d 32:
// beyond the resident k-NN's shared memory (the parts k-NN serves); d 64; d 3: stride 4 (the
// fused kernel); d 130: stride 132 (the bitonic k-NN, rows wider than 128 in the sums).
INSTANTIATE_TEST_SUITE_P(Shapes, CudaTrainingStep,
                         ::testing::Values(StepShape{3001, 32, 20}, StepShape{2500, 7, 50},
                                           StepShape{2000, 32, 1}, StepShape{4000, 32, 1024},
                                           StepShape{3000, 64, 300}, StepShape{1500, 3, 9},
                                           StepShape{700, 130, 40}));

TEST(CudaTrainingStep, EveryKernelGivesTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 2000, d = 32, g = 200;
    const auto x = randomPoints(n, d, 61, 5);
    const auto l = randomPoints(g, d, 62, 5);
    for (const char* kernel : {"nearest", "resident", "parts", "tensor", "fused", "bitonic"}) {
        SCOPED_TRACE(kernel);
        cuda::TrainingStep gpu(x.data(), n, d, kernel);
        expectKmeansStep(gpu, x, n, d, l, g);
        EXPECT_EQ(gpu.lastKernel(), kernel);
    }
}

TEST(CudaTrainingStep, SeveralStepsFollowTheCpuLloydIterations) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 4000, d = 16, g = 32;
    const auto x = randomPoints(n, d, 71, 6);
    LandmarkModel cpu = sampleModel(x, n, d, g, 72);
    std::vector<float> gpuLandmarks = cpu.high;
    auto search = makeCpuNearestSearch();
    TrainingData data{x.data(), n, d};
    cuda::TrainingStep gpu(x.data(), n, d);
    for (int it = 0; it < 6; ++it) {
        SCOPED_TRACE("iteration " + std::to_string(it));
        // The step itself, exactly, from the GPU's own landmarks.
        expectKmeansStep(gpu, x, n, d, gpuLandmarks, g);
        const cuda::StepResult r = gpu.stepKmeans(gpuLandmarks.data(), g);
        // The CPU trainer's iteration from where it stands: the same objective and landmarks.
        const double objective = lloydStep(cpu, data, *search);
        EXPECT_NEAR(r.inertia, objective, 1e-4 * objective);
        for (size_t e = 0; e < g * d; ++e)
            EXPECT_NEAR(r.landmarks[e], cpu.high[e], 1e-4 * std::max(1.0f, std::abs(cpu.high[e])));
        gpuLandmarks = r.landmarks;
    }
}

TEST(CudaTrainingStep, BatchSomMatchesTheHostFormula) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 3000, d = 5, g = 16;
    const auto x = randomPoints(n, d, 81, 3);
    auto l = randomPoints(g, d, 82, 3);
    for (size_t t = 0; t < d; ++t) l[7 * d + t] = 1e4f;  // wins nothing, still smoothed
    std::vector<float> grid(g * 2);
    for (size_t j = 0; j < g; ++j) grid[2 * j] = float(j % 4), grid[2 * j + 1] = float(j / 4);
    auto h = cuda::gaussianNeighbourhood(grid.data(), g, 1.5f);
    h[0 * g + 5] = 0.0f;  // a weight of 0 leaves winner 5 out of landmark 0
    cuda::TrainingStep gpu(x.data(), n, d);
    gpu.setNeighbourhood(h.data(), g);
    const auto r = gpu.stepBatchSom(l.data(), g);
    std::vector<uint32_t> idx;
    std::vector<float> dist;
    hostNearest(x, n, l, g, d, idx, dist);
    EXPECT_EQ(gpu.assignment(), idx);
    const HostSums s = hostSums(x, n, d, g, idx, dist);
    for (size_t j = 0; j < g; ++j) {
        double den = 0;
        std::vector<double> num(d, 0.0), mag(d, 0.0);
        for (size_t c = 0; c < g; ++c) {
            if (s.counts[c] == 0 || h[j * g + c] <= 0.0f) continue;
            den += double(h[j * g + c]) * double(s.counts[c]);
            for (size_t t = 0; t < d; ++t) {
                num[t] += double(h[j * g + c]) * s.sums[c * d + t];
                mag[t] += double(h[j * g + c]) * s.magnitudes[c * d + t];
            }
        }
        EXPECT_NEAR(r.weights[j], den, 1e-9 * den) << "landmark " << j;
        for (size_t t = 0; t < d; ++t)
            EXPECT_NEAR(r.landmarks[j * d + t], num[t] / den, sumTolerance(mag[t]) / den + 1e-6)
                << "landmark " << j;
    }
    EXPECT_NEAR(r.inertia, s.inertia, 1e-6 * s.inertia);
}

TEST(CudaTrainingStep, ALandmarkWithNoWeightKeepsItsPlace) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 500, d = 8, g = 4;
    const auto x = randomPoints(n, d, 91, 2);
    auto l = randomPoints(g, d, 92, 2);
    for (size_t t = 0; t < d; ++t) l[3 * d + t] = -1e4f;
    // Landmark 3 sees only itself, and wins nothing.
    std::vector<float> h(g * g, 0.0f);
    for (size_t j = 0; j < g; ++j) h[j * g + j] = 1.0f;
    cuda::TrainingStep gpu(x.data(), n, d);
    gpu.setNeighbourhood(h.data(), g);
    const auto r = gpu.stepBatchSom(l.data(), g);
    EXPECT_EQ(r.weights[3], 0.0);
    for (size_t t = 0; t < d; ++t) EXPECT_EQ(r.landmarks[3 * d + t], l[3 * d + t]);
}

TEST(CudaTrainingStep, NonFinitePointsAreSkipped) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 3000, d = 32, g = 40;
    auto x = randomPoints(n, d, 101, 4);
    const auto l = randomPoints(g, d, 102, 4);
    x[5 * d + 3] = std::numeric_limits<float>::quiet_NaN();
    x[17 * d + 31] = std::numeric_limits<float>::infinity();
    x[2999 * d] = -std::numeric_limits<float>::infinity();
    cuda::TrainingStep gpu(x.data(), n, d);
    expectKmeansStep(gpu, x, n, d, l, g);
    const auto a = gpu.assignment();
    EXPECT_EQ(a[5], cuda::kSkippedPoint);
    EXPECT_EQ(a[17], cuda::kSkippedPoint);
    EXPECT_EQ(a[2999], cuda::kSkippedPoint);
    EXPECT_EQ(gpu.stepKmeans(l.data(), g).skipped, 3u);
}

// Half the landmarks equal to another in their own group of the products (j and j + 16 share j
// mod 8), so that every cell is won by one of a pair: the host's winners, the lower index of
// each pair, and few cells left to the exact scan (in the products a pair gives one value twice,
// which makes the group ambiguous for every cell it wins).
TEST(CudaTrainingStep, EqualLandmarksLeaveFewCellsToTheScan) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 40000, d = 32, g = 256;
    const auto x = randomPoints(n, d, 141, 16);
    auto l = landmarksOnRows(x, n, d, g, 142);
    for (size_t j = 0; j < g; j += 32)
        for (size_t k = j; k < j + 16; ++k)
            std::copy(l.begin() + long(k * d), l.begin() + long((k + 1) * d),
                      l.begin() + long((k + 16) * d));
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    expectKmeansStep(gpu, x, n, d, l, g);  // the host's winners: the lower of each pair
    EXPECT_LT(gpu.lastExactScans(), n / 50);
}

TEST(CudaTrainingStep, NoPointsLeaveTheLandmarksInPlace) {
    SEPAL_REQUIRE_GPU();
    const size_t d = 6, g = 5;
    const auto l = randomPoints(g, d, 111);
    cuda::TrainingStep gpu(nullptr, 0, d);
    EXPECT_TRUE(gpu.assignment().empty());
    const auto r = gpu.stepKmeans(l.data(), g);
    EXPECT_EQ(r.landmarks, l);
    for (double w : r.weights) EXPECT_EQ(w, 0.0);
    EXPECT_EQ(r.inertia, 0.0);
    EXPECT_EQ(r.skipped, 0u);
    EXPECT_TRUE(gpu.assignment().empty());
    std::vector<float> grid(g * 2, 0.0f);
    gpu.setNeighbourhood(cuda::gaussianNeighbourhood(grid.data(), g, 1.0f).data(), g);
    EXPECT_EQ(gpu.stepBatchSom(l.data(), g).landmarks, l);
}

TEST(CudaTrainingStep, OneStepServesChangingLandmarks) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 2500, d = 24;
    const auto x = randomPoints(n, d, 121, 5);
    cuda::TrainingStep gpu(x.data(), n, d);
    // New landmarks each time, more of them (the buffers grow), then fewer again.
    expectKmeansStep(gpu, x, n, d, randomPoints(20, d, 122, 5), 20);
    expectKmeansStep(gpu, x, n, d, randomPoints(20, d, 123, 5), 20);
    expectKmeansStep(gpu, x, n, d, randomPoints(600, d, 124, 5), 600);
    expectKmeansStep(gpu, x, n, d, randomPoints(10, d, 125, 5), 10);
    // A neighbourhood for another g is refused, not read out of bounds.
    const auto l = randomPoints(10, d, 126, 5);
    std::vector<float> grid(2 * 12, 0.0f);
    gpu.setNeighbourhood(cuda::gaussianNeighbourhood(grid.data(), 12, 1.0f).data(), 12);
    EXPECT_THROW(gpu.stepBatchSom(l.data(), 10), InputError);
}

TEST(CudaTrainingStep, RefusesWhatItCannotTrain) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 100, d = 8;
    const auto x = randomPoints(n, d, 131);
    auto l = randomPoints(4, d, 132);
    EXPECT_THROW(cuda::TrainingStep(x.data(), n, d, "quick"), InputError);
    EXPECT_THROW(cuda::TrainingStep(x.data(), n, 0), InputError);
    cuda::TrainingStep gpu(x.data(), n, d);
    EXPECT_THROW(gpu.stepKmeans(l.data(), 0), InputError);
    l[2 * d + 1] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(gpu.stepKmeans(l.data(), 4), InputError);
    // The resident k-NN cannot take d = 130 (its fragments stop at 64).
    const auto wide = randomPoints(n, 130, 133);
    const auto wl = randomPoints(4, 130, 134);
    cuda::TrainingStep forced(wide.data(), n, 130, "resident");
    EXPECT_THROW(forced.stepKmeans(wl.data(), 4), InputError);
}

// The nearest-landmark kernel's cases. Landmarks: "kmeans", rows of clustered cells, then
// k-means steps (each checked) so that the later steps' centroids crowd their clusters;
// "ties", equal landmarks in one group of the kernel (indices 8 apart: the products cannot
// settle them) and in different groups, nearly equal ones, and cells placed on them; "nonfinite",
// cells with NaN and infinities, one so far out that every distance overflows and one beyond
// FP16's reach that still has finite distances; "shell", every landmark on a sphere of radius
// 10 (radii 5 % apart) around cells at its centre: each value is about 100, so the landmark's
// index in its low bits moves it by up to 2^bits ulps of 100 (1e-3 at g = 1024), more than the
// products' error there and more than the gap between many cells' two nearest landmarks.
struct NearestCase {
    size_t n, d, g;
    const char* landmarks;
};

class CudaNearestStep : public ::testing::TestWithParam<NearestCase> {};

TEST_P(CudaNearestStep, WinnersAndSumsMatchTheHost) {
    SEPAL_REQUIRE_GPU();
    const NearestCase c = GetParam();
    const std::string kind = c.landmarks;
    SCOPED_TRACE(kind);
    auto x = randomPoints(c.n, c.d, 141, 6);
    auto l = landmarksOnRows(x, c.n, c.d, c.g, 142);
    if (kind == "ties") {
        // Equal pairs in one group (j, j + 8; j, j + 64) and in two (j, j + 1), a nearly equal
        // pair in one group and one in two; equal triples across the pass and the exact scan:
        // 17 (a group the pass settles) with 20 and 28 (one group, which the scan takes), so
        // that the pass's candidate must win the tie, and 38 with 33 and 41, so that the scan's
        // must. A tenth of the cells on them.
        const size_t pairs[][2] = {{0, 1},   {2, 10},  {3, 67},  {5, 13}, {6, 7},
                                   {17, 20}, {17, 28}, {33, 41}, {33, 38}};
        for (const auto& pr : pairs)
            if (pr[1] < c.g)
                std::copy(l.begin() + long(pr[0] * c.d), l.begin() + long((pr[0] + 1) * c.d),
                          l.begin() + long(pr[1] * c.d));
        l[13 * c.d] = std::nextafter(l[13 * c.d], 1e9f);
        l[7 * c.d + 1] = std::nextafter(l[7 * c.d + 1], -1e9f);
        const size_t on[] = {0, 2, 3, 5, 6, 7, 13, 17, 33};
        for (size_t i = 0; i < c.n / 10; ++i) {
            const size_t j = on[i % 9];
            for (size_t t = 0; t < c.d; ++t)
                x[i * c.d + t] = l[j * c.d + t] + (i % 3 == 0 ? 0.0f : 1e-3f * float(t % 5));
        }
    } else if (kind == "nonfinite") {
        x[1 * c.d + 2] = std::numeric_limits<float>::quiet_NaN();
        x[4 * c.d] = std::numeric_limits<float>::infinity();
        x[9 * c.d + c.d - 1] = -std::numeric_limits<float>::infinity();
        x[(c.n - 1) * c.d + 1] = std::numeric_limits<float>::quiet_NaN();
        x[11 * c.d + 3] = 1e30f;  // every squared distance overflows: skipped
        x[12 * c.d + 4] = 1e6f;   // beyond FP16's reach, finite distances: scanned exactly
    } else if (kind == "shell") {
        std::mt19937 rng(143);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::uniform_real_distribution<float> spread(1.0f, 1.05f);
        for (size_t j = 0; j < c.g; ++j) {
            std::vector<float> dir(c.d);
            float norm2 = 0;
            for (auto& v : dir) v = normal(rng), norm2 += v * v;
            const float radius = 10.0f * spread(rng) / std::sqrt(norm2);
            for (size_t t = 0; t < c.d; ++t) l[j * c.d + t] = 0.5f * float(t % 3) + radius * dir[t];
        }
        for (size_t i = 0; i < c.n; ++i)
            for (size_t t = 0; t < c.d; ++t)
                x[i * c.d + t] = 0.5f * float(t % 3) + 0.01f * normal(rng);
    }
    const bool sumsAfter = kind == "kmeans" || kind == "shell";
    const ScopedEnv fused("SEPAL_TRAIN_FUSED_SUMS", sumsAfter ? "0" : "1");
    cuda::TrainingStep gpu(x.data(), c.n, c.d, "nearest");
    const int steps = kind == "kmeans" ? 3 : 1;
    for (int it = 0; it < steps; ++it) {
        SCOPED_TRACE("step " + std::to_string(it));
        cuda::StepResult r;
        expectKmeansStep(gpu, x, c.n, c.d, l, c.g, &r);
        EXPECT_EQ(gpu.lastKernel(), "nearest");
        const size_t scans = gpu.lastExactScans();
        if (kind == "kmeans") EXPECT_LT(scans, c.n / 2) << "the products settle most cells";
        if (kind != "kmeans" && kind != "shell")
            EXPECT_GT(scans, 0u) << "these cells need the exact scan";
        l = r.landmarks;
    }
    if (kind == "nonfinite") {
        const auto a = gpu.assignment();
        for (size_t i : {size_t(1), size_t(4), size_t(9), c.n - 1, size_t(11)})
            EXPECT_EQ(a[i], cuda::kSkippedPoint) << "cell " << i;
        EXPECT_NE(a[12], cuda::kSkippedPoint);
    }
}

// g 256 and 1024 at d 32, d 64 at g 1024 (the landmarks in two parts), d 27 (CyTOF-like) at
// g 300 and 777 (not multiples of the kernel's 64), d 16; the ties and non-finite cases add the
// sums in the pass where they fit (SEPAL_TRAIN_FUSED_SUMS=1), the k-means and shell cases after
// it.
INSTANTIATE_TEST_SUITE_P(
    Cases, CudaNearestStep,
    ::testing::Values(NearestCase{6000, 32, 256, "kmeans"}, NearestCase{6000, 32, 1024, "kmeans"},
                      NearestCase{5000, 64, 1024, "kmeans"}, NearestCase{5000, 27, 300, "kmeans"},
                      NearestCase{4000, 27, 777, "kmeans"}, NearestCase{3000, 16, 100, "kmeans"},
                      NearestCase{4000, 64, 256, "ties"}, NearestCase{4000, 32, 1024, "ties"},
                      NearestCase{3000, 27, 300, "ties"}, NearestCase{3000, 27, 300, "nonfinite"},
                      NearestCase{3000, 64, 1024, "nonfinite"},
                      NearestCase{3000, 32, 256, "nonfinite"}, NearestCase{4000, 32, 1024, "shell"},
                      NearestCase{4000, 32, 256, "shell"}, NearestCase{3000, 27, 777, "shell"}),
    [](const ::testing::TestParamInfo<NearestCase>& info) {
        const NearestCase& c = info.param;
        return std::string(c.landmarks) + "_d" + std::to_string(c.d) + "_g" + std::to_string(c.g);
    });

TEST(CudaNearestStep, SumsInThePassOrAfterItAgree) {
    SEPAL_REQUIRE_GPU();
    const size_t n = 5000, d = 32, g = 256;
    const auto x = randomPoints(n, d, 151, 6);
    const auto l = landmarksOnRows(x, n, d, g, 152);
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    expectKmeansStep(gpu, x, n, d, l, g);
    // The sorted sums where the device's shared memory holds them (every H100 and H200).
    EXPECT_EQ(gpu.lastSumMode(), cuda::sortedSumsFit(int(g), int(d)) ? "sorted" : "shared");
    {
        ScopedEnv plain("SEPAL_TRAIN_SORTED_SUMS", "0");
        expectKmeansStep(gpu, x, n, d, l, g);
        EXPECT_EQ(gpu.lastSumMode(), "shared");
    }
    {
        ScopedEnv fused("SEPAL_TRAIN_FUSED_SUMS", "1");
        expectKmeansStep(gpu, x, n, d, l, g);
        EXPECT_EQ(gpu.lastSumMode(), "fused");
    }
    // Auto takes the nearest kernel for the training step's shapes.
    cuda::TrainingStep automatic(x.data(), n, d);
    automatic.stepKmeans(l.data(), g);
    EXPECT_EQ(automatic.lastKernel(), "nearest");
}

// Warpgroup MMA (compute capability 9.0, sm_90a code; the default from g 256, asked for here at
// every g) gives the m16n8k16 products' values bit
// for bit, so both paths give the same winners and leave the same cells to the exact scan, on
// k-means centroids crowding their clusters: g 100 and 300 (pipelines of two steps after or
// instead of a chunk of eight), 256 (also with the sums in the pass), 777, 1024, 1100 (no packed
// index), d 16 to 64 (d 64 at g 1024 in two parts of the landmarks). The sums' atomics may order
// the new landmarks' last bits differently run to run, so each path's landmarks are held to the
// host within float tolerance (expectKmeansStep) and both go on from the first path's.
TEST(CudaNearestStep, WarpgroupProductsGiveTheSameWinnersAndScans) {
    SEPAL_REQUIRE_GPU();
    {
        const ScopedEnv on("SEPAL_NEAREST_WGMMA", "1");
        if (!cuda::nearestUsesWarpgroupProducts(1024))
            GTEST_SKIP() << "no warpgroup MMA here: it needs a device of compute capability 9.0 "
                            "and a build with architecture 90 (compiled as sm_90a)";
    }
    // "fused": the sums in the pass (g 256 at d 32 fits them); g 1100: the landmark's index in
    // its own register (more than 1024 landmarks).
    const NearestCase cases[] = {{3000, 16, 100, "kmeans"},  {4000, 27, 300, "kmeans"},
                                 {6000, 32, 256, "kmeans"},  {4000, 32, 256, "fused"},
                                 {4000, 27, 777, "kmeans"},  {6000, 32, 1024, "kmeans"},
                                 {5000, 64, 1024, "kmeans"}, {3000, 16, 1100, "kmeans"}};
    for (const NearestCase& c : cases) {
        const std::string kind = c.landmarks;
        SCOPED_TRACE(kind + " d " + std::to_string(c.d) + " g " + std::to_string(c.g));
        const ScopedEnv fused("SEPAL_TRAIN_FUSED_SUMS", kind == "fused" ? "1" : "0");
        const auto x = randomPoints(c.n, c.d, 161, 6);
        auto l = landmarksOnRows(x, c.n, c.d, c.g, 162);
        // One step object a path (each keeps its own bounds), both given the same landmarks.
        cuda::TrainingStep plain(x.data(), c.n, c.d, "nearest");
        cuda::TrainingStep warpgroup(x.data(), c.n, c.d, "nearest");
        for (int it = 0; it < 2; ++it) {
            SCOPED_TRACE("step " + std::to_string(it));
            cuda::StepResult r;
            {
                const ScopedEnv off("SEPAL_NEAREST_WGMMA", "0");
                ASSERT_FALSE(cuda::nearestUsesWarpgroupProducts(int(c.g)));
                expectKmeansStep(plain, x, c.n, c.d, l, c.g, &r);
            }
            {
                const ScopedEnv on("SEPAL_NEAREST_WGMMA", "1");
                ASSERT_TRUE(cuda::nearestUsesWarpgroupProducts(int(c.g)));
                expectKmeansStep(warpgroup, x, c.n, c.d, l, c.g);
            }
            EXPECT_EQ(warpgroup.assignment(), plain.assignment());
            EXPECT_EQ(warpgroup.lastExactScans(), plain.lastExactScans());
            if (kind == "fused") EXPECT_EQ(warpgroup.lastSumMode(), "fused");
            l = r.landmarks;
        }
    }
}

// The packed landmark index lives in the low bits of values that can be subnormal: a value of
// exactly 0 with the index bits is one. The nearest kernel keeps them only without
// flush-to-zero (nvcc's default; --use_fast_math or -ftz=true would flush them, and nvcc defines
// no macro that lets the file refuse those). Landmarks +-8 e_t (their mean 0, scale 1) and
// cells halfway to one of them: every product is a small integer, exact in FP16 and FP32, so
// the winner's value is exactly 0 and its packed value the subnormal index j / 8. Flushed, it
// would read as index 0 and the pass would take landmark j mod 8 instead of j.
TEST(CudaNearestStep, SubnormalPackedValuesKeepTheirLandmark) {
    SEPAL_REQUIRE_GPU();
    const size_t d = 32, g = 64, n = 4 * g;
    std::vector<float> l(g * d, 0.0f), x(n * d, 0.0f);
    for (size_t j = 0; j < g; ++j) l[j * d + j % d] = j < d ? 8.0f : -8.0f;
    for (size_t i = 0; i < n; ++i)
        for (size_t t = 0; t < d; ++t) x[i * d + t] = 0.5f * l[(i % g) * d + t];
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    expectKmeansStep(gpu, x, n, d, l, g);
    EXPECT_EQ(gpu.lastExactScans(), 0u) << "the products settle every cell";
    const auto a = gpu.assignment();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], uint32_t(i % g)) << "cell " << i;
}

}  // namespace
}  // namespace sepal::test
