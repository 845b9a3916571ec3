// The training step's bounds (cuda/step_bounds.h): from the second step over the same number of
// landmarks on, cells whose bounds settle their landmark keep it without a search. Every step
// here is checked against the host's exact search (the same winners, ties to the lower index,
// the sums and the inertia, whose kept cells' distances the sums pass measures); the bounds
// must also keep most cells when the landmarks barely move, hand the cells of a landmark that
// jumped to the search, and search every cell when every landmark moved far.
// The pruned pass, which takes the steps the bounds do not try, is off here: these tests count
// what the bounds keep (test_cuda_nearest_pruning.cpp checks the two together).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda/training_step.h"
#include "gpu_test_support.h"
#include "training_step_checks.h"

namespace sepal::test {
namespace {

struct BoundsShape {
    size_t n, d, g;
};

class CudaStepBounds : public ::testing::TestWithParam<BoundsShape> {};

/// The landmarks moved by a jitter of `size` in every coordinate.
std::vector<float> jittered(std::vector<float> l, float size, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-size, size);
    for (float& v : l) v += jitter(rng);
    return l;
}

// Six Lloyd steps, then the last landmarks twice more (no move: the first of them may have to
// make the bounds again, if the Lloyd steps moved too far for them) and then moved by 1e-4:
// each step checked against the host. Landmark 5 is set equal to landmark 4 before every step (a
// tie the bounds must never settle), and three cells are not finite.
TEST_P(CudaStepBounds, KmeansStepsKeepTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const BoundsShape s = GetParam();
    SCOPED_TRACE("n " + std::to_string(s.n) + ", d " + std::to_string(s.d) + ", g " +
                 std::to_string(s.g));
    auto x = randomPoints(s.n, s.d, 201, 12);
    auto l = landmarksOnRows(x, s.n, s.d, s.g, 261);
    x[3 * s.d + 1] = std::numeric_limits<float>::quiet_NaN();
    x[40 * s.d] = std::numeric_limits<float>::infinity();
    x[(s.n - 1) * s.d + s.d - 1] = -std::numeric_limits<float>::infinity();
    cuda::TrainingStep gpu(x.data(), s.n, s.d, "nearest");
    std::vector<float> last;
    for (int step = 0; step < 9; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        if (step == 8) l = jittered(last, 1e-4f, 202);
        if (step == 6 || step == 7) l = last;
        std::copy(l.begin() + long(4 * s.d), l.begin() + long(5 * s.d), l.begin() + long(5 * s.d));
        cuda::StepResult r;
        expectKmeansStep(gpu, x, s.n, s.d, l, s.g, &r);
        const size_t kept = gpu.lastKeptCells();
        if (step == 0) {
            EXPECT_EQ(kept, 0u) << "the first step searches every cell";
        }
        if (step >= 7) {
            EXPECT_GT(kept, s.n / 2) << "landmarks that barely move keep most cells";
        }
        const auto a = gpu.assignment();
        // The cells of landmark 4 tie with landmark 5 and are never kept; the non-finite cells
        // are neither kept nor searched.
        const size_t tied = size_t(std::count(a.begin(), a.end(), 4u));
        EXPECT_LE(kept, s.n - 3 - tied);
        EXPECT_EQ(a[3], cuda::kSkippedPoint);
        EXPECT_EQ(a[40], cuda::kSkippedPoint);
        EXPECT_EQ(a[s.n - 1], cuda::kSkippedPoint);
        last = l;
        l = r.landmarks;
    }
}

// d 32 g 256 and d 27 g 300: the sorted sums measure the kept cells; d 64 g 1024: the landmarks
// in parts, and the sums in landmark_sums.cu (the sorted sums' shared memory is too small);
// d 16 and d 7: strides 16 and 8, landmark_sums.cu's narrow rows; g 1500: the nearest kernel's
// values without the landmark's index in their low bits (past g 1024).
INSTANTIATE_TEST_SUITE_P(Shapes, CudaStepBounds,
                         ::testing::Values(BoundsShape{20000, 32, 256}, BoundsShape{15000, 27, 300},
                                           BoundsShape{12000, 64, 1024},
                                           BoundsShape{20000, 16, 100}, BoundsShape{10000, 7, 40},
                                           BoundsShape{8000, 32, 1500}),
                         [](const ::testing::TestParamInfo<BoundsShape>& info) {
                             const BoundsShape& s = info.param;
                             return "d" + std::to_string(s.d) + "_g" + std::to_string(s.g);
                         });

TEST(CudaStepBounds, ALandmarkThatJumpsTakesItsCellsWithIt) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 20000, d = 32, g = 128;
    const auto x = randomPoints(n, d, 211, 10);
    auto l = landmarksOnRows(x, n, d, g, 262);
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    for (int step = 0; step < 6; ++step) l = gpu.stepKmeans(l.data(), g).landmarks;
    // The same landmarks three times: the first step may move them too far for the bounds to
    // be made (the last Lloyd step's move), the second makes them, the third keeps most cells.
    for (int again = 0; again < 3; ++again) gpu.stepKmeans(l.data(), g);
    EXPECT_GT(gpu.lastKeptCells(), n / 2);
    // Landmark 7 onto cell 100 and landmark 8 onto cell 5000: cells around the new places
    // change landmarks (the whole move counts against every cell's bounds).
    for (size_t t = 0; t < d; ++t) {
        l[7 * d + t] = x[100 * d + t];
        l[8 * d + t] = x[5000 * d + t];
    }
    expectKmeansStep(gpu, x, n, d, l, g);
    const auto after = gpu.assignment();
    EXPECT_EQ(after[100], 7u);
    EXPECT_EQ(after[5000], 8u);
}

TEST(CudaStepBounds, WithoutThemEveryCellIsSearchedForTheSameWinners) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 15000, d = 32, g = 200;
    const auto x = randomPoints(n, d, 221, 8);
    auto l = landmarksOnRows(x, n, d, g, 263);
    cuda::TrainingStep bounded(x.data(), n, d, "nearest");
    std::unique_ptr<cuda::TrainingStep> plain;
    {
        const ScopedEnv off("SEPAL_TRAIN_BOUNDS", "0");
        plain = std::make_unique<cuda::TrainingStep>(x.data(), n, d, "nearest");
    }
    // Six steps, then the last landmarks twice more: the bounds keep most cells there.
    std::vector<float> last;
    for (int step = 0; step < 8; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        if (step >= 6) l = last;
        const cuda::StepResult r = bounded.stepKmeans(l.data(), g);
        {
            const ScopedEnv off("SEPAL_TRAIN_BOUNDS", "0");
            const cuda::StepResult p = plain->stepKmeans(l.data(), g);
            EXPECT_EQ(plain->lastKeptCells(), 0u);
            EXPECT_NEAR(r.inertia, p.inertia, 1e-6 * p.inertia);
        }
        EXPECT_EQ(bounded.assignment(), plain->assignment());
        last = l;
        l = r.landmarks;
    }
    EXPECT_GT(bounded.lastKeptCells(), n / 2);
}

// Hamerly's second test (the distance measured where the grown upper bound fails; made at any g
// with SEPAL_TRAIN_TIGHTEN=1) against the bounds alone (=0), over Lloyd steps of moving
// landmarks: the same winners and inertia, and more cells kept over the run.
TEST(CudaStepBounds, TheSecondTestKeepsMoreCellsForTheSameWinners) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 30000, d = 32, g = 256;
    const auto x = randomPoints(n, d, 223, 10);
    auto l = landmarksOnRows(x, n, d, g, 266);
    cuda::TrainingStep tightened(x.data(), n, d, "nearest");
    cuda::TrainingStep plain(x.data(), n, d, "nearest");  // the switch is read at each step
    size_t keptTightened = 0, keptPlain = 0;
    for (int step = 0; step < 16; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        cuda::StepResult r;
        {
            const ScopedEnv on("SEPAL_TRAIN_TIGHTEN", "1");
            r = tightened.stepKmeans(l.data(), g);
        }
        {
            const ScopedEnv off("SEPAL_TRAIN_TIGHTEN", "0");
            const cuda::StepResult p = plain.stepKmeans(l.data(), g);
            EXPECT_NEAR(r.inertia, p.inertia, 1e-6 * p.inertia);
        }
        EXPECT_EQ(tightened.assignment(), plain.assignment());
        keptTightened += tightened.lastKeptCells();
        keptPlain += plain.lastKeptCells();
        l = r.landmarks;
    }
    EXPECT_GT(keptTightened, keptPlain);
}

// The trainers' steps (measureInertia(false)) against the measured ones: the same kept cells,
// winners and landmarks; the inertia NaN after a step that kept cells, and the measured one's
// after a step that kept none (the nearest pass measuring every winner's distance, so that only
// the kept cells are left to the sums).
TEST(CudaStepBounds, UnmeasuredInertiaLeavesTheStepAsItWas) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const ScopedEnv winners("SEPAL_NEAREST_WINNER_DISTANCES", "1");
    const size_t n = 15000, d = 32, g = 200;
    const auto x = randomPoints(n, d, 222, 8);
    auto l = landmarksOnRows(x, n, d, g, 265);
    cuda::TrainingStep measured(x.data(), n, d, "nearest");
    cuda::TrainingStep unmeasured(x.data(), n, d, "nearest");
    unmeasured.measureInertia(false);
    std::vector<float> last;
    size_t keptSteps = 0;
    for (int step = 0; step < 8; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        if (step >= 6) l = last;
        const cuda::StepResult m = measured.stepKmeans(l.data(), g);
        const cuda::StepResult u = unmeasured.stepKmeans(l.data(), g);
        EXPECT_EQ(unmeasured.lastKeptCells(), measured.lastKeptCells());
        EXPECT_EQ(unmeasured.assignment(), measured.assignment());
        ASSERT_EQ(u.landmarks.size(), m.landmarks.size());
        for (size_t e = 0; e < m.landmarks.size(); ++e)
            ASSERT_NEAR(u.landmarks[e], m.landmarks[e], 1e-5f * (1.0f + std::fabs(m.landmarks[e])))
                << "coordinate " << e;
        if (unmeasured.lastKeptCells() > 0) {
            ++keptSteps;
            EXPECT_TRUE(std::isnan(u.inertia));
            EXPECT_TRUE(std::isfinite(m.inertia));
        } else {
            EXPECT_NEAR(u.inertia, m.inertia, 1e-6 * m.inertia);
        }
        last = l;
        l = m.landmarks;
    }
    EXPECT_GT(keptSteps, 0u);
}

// A settled cell with one candidate wins without its distance (the nearest pass's default; its
// upper bound then comes from the products' value), against the pass that measures every winner
// (SEPAL_NEAREST_WINNER_DISTANCES=1), over Lloyd steps with the bounds: both hold the host's
// winners and inertia every step (expectKmeansStep; the sums pass measures what the nearest pass
// left), most searched cells are lone ones in the first and none in the second, the looser upper
// bounds still keep cells, and a trainer's step (measureInertia(false)) reports no inertia where
// the pass left distances. d 32 at g 256 and 1024 (packed indices), g 1500 (none).
TEST(CudaStepBounds, ALoneCandidateWinsWithoutItsDistance) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const ScopedEnv afterThePass("SEPAL_TRAIN_FUSED_SUMS", "0");
    const ScopedEnv lone("SEPAL_NEAREST_WINNER_DISTANCES", "0");
    for (const size_t g : {size_t(256), size_t(1024), size_t(1500)}) {
        SCOPED_TRACE("g " + std::to_string(g));
        const size_t n = 20000, d = 32;
        const auto x = randomPoints(n, d, 231, 10);
        auto l = landmarksOnRows(x, n, d, g, 232);
        cuda::TrainingStep alone(x.data(), n, d, "nearest");
        cuda::TrainingStep measured(x.data(), n, d, "nearest");
        cuda::TrainingStep trainer(x.data(), n, d, "nearest");
        trainer.measureInertia(false);
        size_t keptLone = 0, keptMeasured = 0;
        std::vector<float> last;
        for (int step = 0; step < 8; ++step) {
            SCOPED_TRACE("step " + std::to_string(step));
            if (step >= 6) l = last;  // no move: most cells kept
            cuda::StepResult r;
            expectKmeansStep(alone, x, n, d, l, g, &r);
            {
                const ScopedEnv winners("SEPAL_NEAREST_WINNER_DISTANCES", "1");
                expectKmeansStep(measured, x, n, d, l, g);
            }
            EXPECT_EQ(alone.assignment(), measured.assignment());
            EXPECT_EQ(measured.lastLoneCells(), 0u);
            // The first step searches every cell: most have one candidate.
            if (step == 0) EXPECT_GT(alone.lastLoneCells(), n / 2);
            const cuda::StepResult t = trainer.stepKmeans(l.data(), g);
            EXPECT_EQ(trainer.assignment(), alone.assignment());
            EXPECT_EQ(std::isnan(t.inertia),
                      trainer.lastLoneCells() > 0 || trainer.lastKeptCells() > 0);
            keptLone += alone.lastKeptCells();
            keptMeasured += measured.lastKeptCells();
            last = l;
            l = r.landmarks;
        }
        EXPECT_GT(keptLone, keptMeasured / 2) << "the values' upper bounds keep cells too";
    }
}

// Batch-SOM epochs with a shrinking neighbourhood, then the last epoch's landmarks twice more:
// the winners each epoch are the host's, and the second repeat keeps most cells.
TEST(CudaStepBounds, BatchSomEpochsKeepTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 15000, d = 16, side = 8, g = side * side;
    const auto x = randomPoints(n, d, 231, 6);
    auto l = landmarksOnRows(x, n, d, g, 264);
    std::vector<float> grid(g * 2);
    for (size_t j = 0; j < g; ++j) grid[2 * j] = float(j % side), grid[2 * j + 1] = float(j / side);
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    std::vector<float> last;
    for (int epoch = 0; epoch < 10; ++epoch) {
        SCOPED_TRACE("epoch " + std::to_string(epoch));
        const float sigma = std::max(0.3f, 3.0f * std::pow(0.6f, float(std::min(epoch, 7))));
        gpu.setNeighbourhood(cuda::gaussianNeighbourhood(grid.data(), g, sigma).data(), g);
        if (epoch >= 8) l = last;
        const cuda::StepResult r = gpu.stepBatchSom(l.data(), g);
        std::vector<uint32_t> idx;
        std::vector<float> dist;
        hostNearest(x, n, l, g, d, idx, dist);
        EXPECT_EQ(gpu.assignment(), idx);
        const HostSums h = hostSums(x, n, d, g, idx, dist);
        EXPECT_NEAR(r.inertia, h.inertia, 1e-6 * h.inertia);
        if (epoch == 9) {
            EXPECT_GT(gpu.lastKeptCells(), n / 2);
        }
        last = l;
        l = r.landmarks;
    }
}

// The app's batch SOM (square neighbourhood, Chebyshev map distances, the radius from 1.5 map
// spacings to 0) on clustered cells: while the radius spans a block of the map, the landmarks of
// a block share their cells and come out equal (hidden from the products, one of each kept).
// Each epoch's winners are the host's.
TEST(CudaStepBounds, TheSquareNeighbourhoodsEqualLandmarksKeepTheHostsWinners) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 30000, d = 32, side = 16, g = side * side;
    const auto x = randomPoints(n, d, 251, 16);
    auto l = landmarksOnRows(x, n, d, g, 267);
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    const int epochs = 10;
    size_t mostTwins = 0;
    for (int epoch = 0; epoch < epochs; ++epoch) {
        SCOPED_TRACE("epoch " + std::to_string(epoch));
        const float radius = 1.5f * float(epochs - 1 - epoch) / float(epochs - 1);
        gpu.setNeighbourhood(squareNeighbourhood(side, radius).data(), g);
        size_t twins = 0;  // landmarks equal to one of lower index
        for (size_t j = 1; j < g; ++j)
            for (size_t k = 0; k < j; ++k)
                if (std::equal(l.begin() + long(j * d), l.begin() + long((j + 1) * d),
                               l.begin() + long(k * d))) {
                    ++twins;
                    break;
                }
        mostTwins = std::max(mostTwins, twins);
        const cuda::StepResult r = gpu.stepBatchSom(l.data(), g);
        std::vector<uint32_t> idx;
        std::vector<float> dist;
        hostNearest(x, n, l, g, d, idx, dist);
        EXPECT_EQ(gpu.assignment(), idx) << twins << " equal landmarks";
        std::printf(
            "epoch %d: radius %.3f, %zu equal landmarks, %zu cells scanned exactly, %zu "
            "kept\n",
            epoch, double(radius), twins, gpu.lastExactScans(), gpu.lastKeptCells());
        l = r.landmarks;
    }
    EXPECT_GE(mostTwins, g / 8) << "the schedule should make blocks of equal landmarks";
}

// Landmark 9 equal to landmark 8 while the bounds are made: the cells of 8 get no lower bound
// (9 lies exactly as far, though the products never pass it). Then 9 alone moves a little toward
// a cell of 8: that cell goes to 9, as on the host, rather than keeping 8 by its bounds.
TEST(CudaStepBounds, ACellOfEqualLandmarksFollowsTheOneThatMoves) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 20000, d = 32, g = 64;
    const auto x = randomPoints(n, d, 253, 8);
    auto l = landmarksOnRows(x, n, d, g, 268);
    std::copy(l.begin() + long(8 * d), l.begin() + long(9 * d), l.begin() + long(9 * d));
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    // The same landmarks three times: the bounds are made, then they keep most cells.
    for (int again = 0; again < 3; ++again) expectKmeansStep(gpu, x, n, d, l, g);
    EXPECT_GT(gpu.lastKeptCells(), n / 2);
    const auto before = gpu.assignment();
    const auto mine = std::find(before.begin(), before.end(), 8u);
    ASSERT_NE(mine, before.end()) << "no cell is nearest to landmark 8";
    const size_t cell = size_t(mine - before.begin());
    for (size_t t = 0; t < d; ++t) l[9 * d + t] += 0.01f * (x[cell * d + t] - l[9 * d + t]);
    expectKmeansStep(gpu, x, n, d, l, g);
    EXPECT_EQ(gpu.assignment()[cell], 9u);
}

// Every landmark moved far: every cell is listed, and the search of the listed cells (read in
// place, NearestArgs::cells) is the whole pass; then a step that stays keeps most of them.
TEST(CudaStepBounds, EveryCellListedIsSearched) {
    SEPAL_REQUIRE_GPU();
    const ScopedEnv noPruning("SEPAL_TRAIN_PRUNE", "0");  // what the bounds keep alone
    const size_t n = 300000, d = 8, g = 64;
    const auto x = randomPoints(n, d, 241, 16);
    auto l = landmarksOnRows(x, n, d, g, 265);
    cuda::TrainingStep gpu(x.data(), n, d, "nearest");
    expectKmeansStep(gpu, x, n, d, l, g);
    // Every landmark elsewhere: nearly every cell is listed.
    l = landmarksOnRows(x, n, d, g, 265);
    for (size_t e = 0; e < g * d; ++e) l[e] = -l[e];
    expectKmeansStep(gpu, x, n, d, l, g);
    EXPECT_EQ(gpu.lastKeptCells(), 0u);
    // A step that stays: every cell whose landmark is not tied is kept.
    expectKmeansStep(gpu, x, n, d, l, g);
    EXPECT_GT(gpu.lastKeptCells(), n / 2);
}

}  // namespace
}  // namespace sepal::test
