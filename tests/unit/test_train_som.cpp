#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/init.h"
#include "core/train/objective.h"
#include "core/train/som_trainer.h"
#include "core/train/trainer_factory.h"
#include "train_fixtures.h"

namespace sepal {

namespace {

LandmarkModel gridModel(const TrainingData& data, size_t rows, size_t cols) {
    LandmarkModel m;
    InitParams ip;
    ip.method = InitMethod::Grid;
    ip.rows = rows;
    ip.cols = cols;
    initModel(m, data, ip);
    return m;
}

// Runs a trainer to its end and returns the quantisation error after each epoch.
std::vector<double> trainEpochs(Trainer& t, LandmarkModel& m, const TrainingData& data,
                                NearestSearch& search) {
    std::vector<double> qe{quantisationError(m, data, search)};
    double mark = 0.0;
    while (t.step(m, data))
        if (t.progress() >= mark + 0.2) {
            mark = t.progress();
            qe.push_back(quantisationError(m, data, search));
        }
    qe.push_back(quantisationError(m, data, search));
    return qe;
}

}  // namespace

TEST(TrainSom, QuantisationErrorFallsOverEpochs) {
    const auto x = test::blobs(2000, 4, 5, 1);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = gridModel(data, 6, 6);
    SomParams p;
    p.epochs = 5;
    p.stepPoints = 1000;
    SomTrainer som(p, *search);
    const auto qe = trainEpochs(som, m, data, *search);
    ASSERT_GE(qe.size(), 4u);
    for (size_t i = 1; i < qe.size(); ++i) EXPECT_LT(qe[i], qe[i - 1] * 1.02) << "epoch mark " << i;
    EXPECT_LT(qe.back(), 0.6 * qe.front());
    EXPECT_DOUBLE_EQ(som.progress(), 1.0);
    EXPECT_FALSE(som.step(m, data));
}

TEST(TrainSom, GaussianFreeTopologyAndSearchBatchesAlsoConverge) {
    const auto x = test::blobs(1500, 3, 4, 2);
    const auto data = test::view(x, 3);
    auto search = makeCpuNearestSearch();
    // One search per point: a single thread keeps thousands of tiny parallel regions cheap on a
    // busy machine.
    omp_set_num_threads(1);
    for (size_t batch : {1u, 32u}) {
        // A grid whose 2D positions are jittered: a free layout, not a grid.
        LandmarkModel m = gridModel(data, 5, 6);
        for (size_t i = 0; i < m.low.size(); ++i) m.low[i] += 0.3f * std::sin(7.0f * i);
        auto t = makeTrainer("som",
                             {{"epochs", 6},
                              {"topology", "free"},
                              {"neighbourhood", "gaussian"},
                              {"searchBatch", batch}},
                             *search);
        const auto qe = trainEpochs(*t, m, data, *search);
        EXPECT_LT(qe.back(), qe.front()) << "batch " << batch;
    }
}

TEST(TrainSom, SameSeedSameResultAndThreadCountChangesNothing) {
    const auto x = test::blobs(1200, 5, 3, 4);
    const auto data = test::view(x, 5);
    auto search = makeCpuNearestSearch();
    auto run = [&](uint64_t seed, int threads) {
        omp_set_num_threads(threads);
        LandmarkModel m = gridModel(data, 4, 5);
        SomParams p;
        p.epochs = 2;
        p.seed = seed;
        p.searchBatch = 16;
        SomTrainer som(p, *search);
        while (som.step(m, data)) {
        }
        return m.high;
    };
    const auto a = run(3, 1);
    EXPECT_EQ(a, run(3, 2));
    EXPECT_NE(a, run(4, 2));
}

TEST(TrainSom, DataSpaceLockedLandmarksDoNotMove) {
    const auto x = test::blobs(800, 3, 2, 5);
    const auto data = test::view(x, 3);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = gridModel(data, 4, 4);
    setLocked(m, 5, kLockHigh);
    setLocked(m, 6, kLockLow);
    const std::vector<float> before5(m.highRow(5), m.highRow(5) + 3);
    const std::vector<float> before6(m.highRow(6), m.highRow(6) + 3);
    const auto low = m.low;
    SomParams p;
    p.epochs = 2;
    SomTrainer som(p, *search);
    while (som.step(m, data)) {
    }
    EXPECT_EQ(std::vector<float>(m.highRow(5), m.highRow(5) + 3), before5);
    EXPECT_NE(std::vector<float>(m.highRow(6), m.highRow(6) + 3), before6);
    EXPECT_EQ(m.low, low);
}

TEST(TrainSom, ManualModeHoldsRadiusAndAlpha) {
    const auto x = test::blobs(500, 2, 2, 6);
    const auto data = test::view(x, 2);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = gridModel(data, 3, 3);
    SomParams p;
    p.epochs = 1;
    p.stepPoints = 200;
    SomTrainer som(p, *search);
    som.setManual(1.5f, 0.02f);
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(som.step(m, data));
    EXPECT_LT(som.progress(), 0.0);
    EXPECT_FLOAT_EQ(som.radius(), 1.5f);
    EXPECT_FLOAT_EQ(som.alpha(), 0.02f);
    som.setScheduled();
    EXPECT_DOUBLE_EQ(som.progress(), 0.0);
    EXPECT_FLOAT_EQ(som.alpha(), 0.05f);
}

TEST(TrainFactory, UnknownNamesAndKeysAreInputErrors) {
    auto search = makeCpuNearestSearch();
    EXPECT_THROW(makeTrainer("sommm", nullptr, *search), InputError);
    EXPECT_THROW(makeTrainer("som", {{"epoch", 3}}, *search), InputError);
    EXPECT_THROW(makeTrainer("som", {{"epochs", "many"}}, *search), InputError);
    EXPECT_THROW(makeTrainer("som", {{"epochs", -1}}, *search), InputError);
    EXPECT_THROW(makeTrainer("som", {{"topology", "hex"}}, *search), InputError);
    for (const auto& name : trainerNames())
        EXPECT_EQ(makeTrainer(name, nlohmann::json::object(), *search)->name(), name);
}

}  // namespace sepal
