#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/init.h"
#include "core/train/kmeans_trainer.h"
#include "core/train/lloyd_trainer.h"
#include "core/train/objective.h"
#include "train_fixtures.h"

namespace sepal {

namespace {

LandmarkModel sampled(const TrainingData& data, size_t g, uint64_t seed = 1) {
    LandmarkModel m;
    InitParams ip;
    ip.method = InitMethod::Sample;
    ip.g = g;
    ip.seed = seed;
    initModel(m, data, ip);
    return m;
}

}  // namespace

TEST(TrainKmeans, LloydStepsNeverRaiseTheObjective) {
    const auto x = test::blobs(3000, 6, 8, 21);
    const auto data = test::view(x, 6);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = sampled(data, 20);
    setLocked(m, 3, kLockHigh);
    double previous = lloydStep(m, data, *search);
    for (int it = 0; it < 15; ++it) {
        const double now = lloydStep(m, data, *search);
        EXPECT_LE(now, previous * (1.0 + 1e-6)) << "iteration " << it;
        previous = now;
    }
    EXPECT_LE(kmeansObjective(m, data, *search), previous * (1.0 + 1e-6));
}

TEST(TrainKmeans, OnlineRateLowersTheObjectiveSmoothly) {
    const auto x = test::blobs(3000, 4, 6, 22);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = sampled(data, 12);
    const auto low = m.low;
    KmeansParams p;
    p.rate = 0.02f;
    p.stepPoints = 2000;
    KmeansTrainer km(p, *search);
    EXPECT_LT(km.progress(), 0.0);
    const double before = kmeansObjective(m, data, *search);
    std::vector<float> prev = m.high;
    float largestMove = 0.0f;
    for (int s = 0; s < 10; ++s) {
        EXPECT_TRUE(km.step(m, data));
        for (size_t i = 0; i < m.high.size(); ++i)
            largestMove = std::max(largestMove, std::abs(m.high[i] - prev[i]));
        prev = m.high;
    }
    EXPECT_LT(kmeansObjective(m, data, *search), 0.9 * before);
    EXPECT_EQ(m.low, low);
    // Smooth: no coordinate jumps by more than a few data units in one step.
    EXPECT_LT(largestMove, 8.0f);
}

TEST(TrainKmeans, SeedsAndThreadsAndLocks) {
    const auto x = test::blobs(2000, 3, 5, 23);
    const auto data = test::view(x, 3);
    auto search = makeCpuNearestSearch();
    auto run = [&](uint64_t seed, int threads) {
        omp_set_num_threads(threads);
        LandmarkModel m = sampled(data, 10);
        setLocked(m, 2, kLockBoth);
        KmeansParams p;
        p.epochs = 2;
        p.seed = seed;
        p.searchBatch = 8;
        KmeansTrainer km(p, *search);
        while (km.step(m, data)) {
        }
        EXPECT_DOUBLE_EQ(km.progress(), 1.0);
        return m;
    };
    const LandmarkModel a = run(9, 1);
    EXPECT_EQ(a.high, run(9, 2).high);
    EXPECT_NE(a.high, run(10, 2).high);
    const LandmarkModel fresh = sampled(data, 10);
    EXPECT_EQ(std::vector<float>(a.highRow(2), a.highRow(2) + 3),
              std::vector<float>(fresh.highRow(2), fresh.highRow(2) + 3));
}

TEST(TrainKmeans, DuplicatedLandmarkDriftsAway) {
    const auto x = test::blobs(2000, 2, 2, 24);
    const auto data = test::view(x, 2);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = sampled(data, 2, 3);
    const size_t copy = duplicateLandmark(m, 0);
    const float startGap =
        std::hypot(m.high[2 * copy] - m.high[0], m.high[2 * copy + 1] - m.high[1]);
    for (int i = 0; i < 10; ++i) lloydStep(m, data, *search);
    const float endGap = std::hypot(m.high[2 * copy] - m.high[0], m.high[2 * copy + 1] - m.high[1]);
    EXPECT_GT(endGap, 2.0f * startGap);
}

// Embed runs whole iterations with the assigner's bounds; the app steps through parts of an
// iteration. Both are Lloyd's iterations to the last bit, locks included.
TEST(TrainKmeans, TheLloydTrainerGivesLloydStepsLandmarksWholeOrInParts) {
    const auto x = test::blobs(3000, 5, 7, 25);
    const auto data = test::view(x, 5);
    auto search = makeCpuNearestSearch();
    LandmarkModel start = sampled(data, 24, 4);
    setLocked(start, 5, kLockHigh);
    LandmarkModel expected = start;
    for (int it = 0; it < 4; ++it) lloydStep(expected, data, *search);
    for (size_t stepPoints : {size_t(0), size_t(700), size_t(5000)}) {
        SCOPED_TRACE(stepPoints);
        LloydParams p;
        p.epochs = 4;
        p.stepPoints = stepPoints;
        LloydTrainer lloyd(p, *search);
        EXPECT_EQ(lloyd.name(), "kmeans");
        LandmarkModel m = start;
        int steps = 1;
        while (lloyd.step(m, data)) ++steps;
        EXPECT_EQ(steps, stepPoints == 700 ? 20 : 4);  // 3000 points: 5 parts an iteration
        EXPECT_DOUBLE_EQ(lloyd.progress(), 1.0);
        EXPECT_FALSE(lloyd.step(m, data));
        EXPECT_EQ(m.high, expected.high);
        EXPECT_EQ(m.low, start.low);
    }
    // A landmark added in the middle of an iteration starts that iteration again.
    LloydParams p;
    p.epochs = 2;
    p.stepPoints = 1000;
    LloydTrainer lloyd(p, *search);
    LandmarkModel m = start;
    lloyd.step(m, data);
    duplicateLandmark(m, 0);
    while (lloyd.step(m, data)) {
    }
    EXPECT_EQ(m.count(), 25u);
    for (float v : m.high) EXPECT_TRUE(std::isfinite(v));
    // No iterations: the start stays.
    p.epochs = 0;
    LloydTrainer none(p, *search);
    m = start;
    EXPECT_FALSE(none.step(m, data));
    EXPECT_EQ(m.high, start.high);
}

TEST(TrainInit, GridSampleAndPcaPlacements) {
    const auto x = test::blobs(1000, 5, 3, 25);
    const auto data = test::view(x, 5);
    const PcaPlane plane = computePcaPlane(data, 1);
    EXPECT_GE(plane.sd1, plane.sd2);
    double dot = 0, n1 = 0;
    for (size_t t = 0; t < 5; ++t)
        dot += plane.axis1[t] * plane.axis2[t], n1 += plane.axis1[t] * plane.axis1[t];
    EXPECT_NEAR(dot, 0.0, 1e-5);
    EXPECT_NEAR(n1, 1.0, 1e-5);

    LandmarkModel grid;
    InitParams ip;
    ip.rows = 3;
    ip.cols = 4;
    initModel(grid, data, ip);
    EXPECT_EQ(grid.count(), 12u);
    EXPECT_EQ(grid.low[2 * 7], 3.0f);  // row 1, column 3
    EXPECT_EQ(grid.low[2 * 7 + 1], 1.0f);

    LandmarkModel sample;
    ip.method = InitMethod::Sample;
    ip.g = 50;
    initModel(sample, data, ip);
    ASSERT_EQ(sample.count(), 50u);
    // Each landmark is one of the data points.
    for (size_t i = 0; i < 50; ++i) {
        bool found = false;
        for (size_t p = 0; p < 1000 && !found; ++p)
            found = std::equal(sample.highRow(i), sample.highRow(i) + 5, x.data() + p * 5);
        EXPECT_TRUE(found) << i;
    }
    LandmarkModel pca;
    ip.method = InitMethod::Pca;
    initModel(pca, data, ip);
    EXPECT_EQ(pca.low, sample.low);
    EXPECT_THROW(parseInitMethod("hexagon"), InputError);
}

}  // namespace sepal
