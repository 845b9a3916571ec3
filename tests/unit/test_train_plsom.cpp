#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>

#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/batch_som_trainer.h"
#include "core/train/init.h"
#include "core/train/objective.h"
#include "core/train/plsom_trainer.h"
#include "train_fixtures.h"

namespace sepal {

namespace {

LandmarkModel grid(const TrainingData& data, size_t rows, size_t cols) {
    LandmarkModel m;
    InitParams ip;
    ip.rows = rows;
    ip.cols = cols;
    initModel(m, data, ip);
    return m;
}

}  // namespace

TEST(TrainPlsom, HasNoScheduleAndAdaptsToNewData) {
    const auto a = test::blobs(2000, 3, 4, 31);
    auto b = test::blobs(2000, 3, 4, 32);
    for (float& v : b) v += 25.0f;  // the new data lies far away
    const auto da = test::view(a, 3), db = test::view(b, 3);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = grid(da, 5, 5);
    PlsomParams p;
    p.stepPoints = 2000;
    PlsomTrainer t(p, *search);
    const double start = quantisationError(m, da, *search);
    for (int s = 0; s < 5; ++s) EXPECT_TRUE(t.step(m, da));
    EXPECT_LT(t.progress(), 0.0);
    const double trainedA = quantisationError(m, da, *search);
    EXPECT_LT(trainedA, start);
    const double beforeB = quantisationError(m, db, *search);
    for (int s = 0; s < 5; ++s) EXPECT_TRUE(t.step(m, db));
    const double afterB = quantisationError(m, db, *search);
    EXPECT_LT(afterB, 0.2 * beforeB);
    EXPECT_LT(afterB, 2.0 * trainedA);
    EXPECT_GT(t.rho(), 20.0f);
}

TEST(TrainPlsom, EpochsBoundAHeadlessRun) {
    const auto x = test::blobs(1000, 3, 4, 35);
    const auto data = test::view(x, 3);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = grid(data, 4, 4);
    PlsomParams p;
    p.epochs = 3;
    p.stepPoints = 700;
    PlsomTrainer t(p, *search);
    const double start = quantisationError(m, data, *search);
    int steps = 0;
    while (t.step(m, data)) ++steps;
    EXPECT_EQ(steps, 4);  // 3000 updates in steps of 700: the fifth call finishes the run
    EXPECT_DOUBLE_EQ(t.progress(), 1.0);
    EXPECT_FALSE(t.step(m, data));
    EXPECT_LT(quantisationError(m, data, *search), start);
}

TEST(TrainPlsom, SeedAndThreadsAndLocks) {
    const auto x = test::blobs(1500, 4, 3, 33);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    auto run = [&](uint64_t seed, int threads) {
        omp_set_num_threads(threads);
        LandmarkModel m = grid(data, 4, 4);
        setLocked(m, 0, kLockHigh);
        PlsomParams p;
        p.seed = seed;
        p.searchBatch = 8;
        PlsomTrainer t(p, *search);
        for (int s = 0; s < 3; ++s) t.step(m, data);
        return m;
    };
    const LandmarkModel one = run(5, 1);
    EXPECT_EQ(one.high, run(5, 2).high);
    EXPECT_NE(one.high, run(6, 2).high);
    const LandmarkModel fresh = grid(data, 4, 4);
    EXPECT_EQ(std::vector<float>(one.high.begin(), one.high.begin() + 4),
              std::vector<float>(fresh.high.begin(), fresh.high.begin() + 4));
}

TEST(TrainBatchSom, QuantisationErrorFallsAndThreadsChangeNothing) {
    const auto x = test::blobs(3000, 5, 6, 34);
    const auto data = test::view(x, 5);
    auto search = makeCpuNearestSearch();
    auto run = [&](int threads, std::vector<double>* qe) {
        omp_set_num_threads(threads);
        LandmarkModel m = grid(data, 6, 6);
        setLocked(m, 4, kLockHigh);
        SomParams p;
        p.epochs = 8;
        p.stepPoints = 1000;  // three steps per epoch
        p.sampleSize = 2500;
        BatchSomTrainer t(p, *search);
        if (qe) qe->push_back(quantisationError(m, data, *search));
        while (t.step(m, data))
            if (qe && t.progress() * 8 == std::floor(t.progress() * 8))
                qe->push_back(quantisationError(m, data, *search));
        if (qe) qe->push_back(quantisationError(m, data, *search));
        EXPECT_DOUBLE_EQ(t.progress(), 1.0);
        return m;
    };
    std::vector<double> qe;
    const LandmarkModel m = run(2, &qe);
    ASSERT_GE(qe.size(), 8u);
    // The first epochs pull the whole map together (wide radius); from then on each epoch
    // with a smaller radius fits the data better.
    for (size_t i = 3; i < qe.size(); ++i) EXPECT_LT(qe[i], qe[i - 1] * 1.02) << "epoch " << i;
    EXPECT_LT(qe.back(), 0.6 * qe.front());
    EXPECT_EQ(m.high, run(1, nullptr).high);
    const LandmarkModel fresh = grid(data, 6, 6);
    EXPECT_EQ(std::vector<float>(m.highRow(4), m.highRow(4) + 5),
              std::vector<float>(fresh.highRow(4), fresh.highRow(4) + 5));
}

TEST(TrainBatchSom, LandmarksAddedMidEpochRestartTheEpoch) {
    const auto x = test::blobs(2000, 3, 3, 36);
    const auto data = test::view(x, 3);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = grid(data, 3, 3);
    SomParams p;
    p.epochs = 2;
    p.stepPoints = 500;
    BatchSomTrainer t(p, *search);
    EXPECT_TRUE(t.step(m, data));
    duplicateLandmark(m, 4);
    duplicateLandmark(m, 0);
    while (t.step(m, data)) {
    }
    EXPECT_EQ(m.count(), 11u);
    for (float v : m.high) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace sepal
