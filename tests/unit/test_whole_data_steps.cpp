// The trainers stepping over every cell through core's WholeDataSteps (what the CUDA backend
// offers), here through an in-memory fake with the CPU's sums: Lloyd's k-means and the batch SOM
// make one call a step, keep locked landmarks, give the batch SOM's own neighbourhood, follow the
// schedule, and give the CPU trainers' landmarks; without them, nothing changes.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "core/common/error.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_edit.h"
#include "core/train/batch_som_trainer.h"
#include "core/train/init.h"
#include "core/train/lloyd_trainer.h"
#include "core/train/topology.h"
#include "core/train/trainer_factory.h"
#include "core/train/trainer_names.h"
#include "fake_whole_data_steps.h"
#include "train_fixtures.h"

namespace sepal {
namespace {

LandmarkModel startModel(const TrainingData& data, InitMethod method, size_t side) {
    LandmarkModel m;
    InitParams ip;
    ip.method = method;
    ip.rows = ip.cols = side;
    ip.g = side * side;
    initModel(m, data, ip);
    return m;
}

/// A copy of landmark j's data-space row.
std::vector<float> rowOf(const LandmarkModel& m, size_t j) {
    return {m.highRow(j), m.highRow(j) + m.dim};
}

TEST(WholeDataSteps, LloydStepsOnceACallOverEveryCellAsTheCpuTrainer) {
    const auto x = test::blobs(3000, 5, 6, 11);
    const auto data = test::view(x, 5);
    auto search = makeCpuNearestSearch();
    LandmarkModel cpu = startModel(data, InitMethod::Sample, 4);
    cpu.locked[3] |= kLockHigh;
    LandmarkModel whole = cpu;
    const auto locked = rowOf(cpu, 3);
    LloydParams p;
    p.epochs = 5;
    LloydTrainer onCpu(p, *search), through(p, *search);
    test::FakeWholeDataSteps steps(x.data(), data.n, data.d);
    ASSERT_TRUE(through.useWholeData(&steps));
    for (size_t it = 0; it < p.epochs; ++it) {
        const bool more = onCpu.step(cpu, data);
        // No cells of its own: the step reads every cell through the steps.
        const uint64_t version = whole.highVersion;
        EXPECT_EQ(through.step(whole, TrainingData{nullptr, 0, data.d}), more);
        EXPECT_EQ(steps.lloydCalls, it + 1);
        EXPECT_NE(whole.highVersion, version);
        EXPECT_EQ(whole.high, cpu.high) << "iteration " << it;
        EXPECT_EQ(rowOf(whole, 3), locked);
        EXPECT_DOUBLE_EQ(through.progress(), onCpu.progress());
    }
    EXPECT_DOUBLE_EQ(through.progress(), 1.0);
    EXPECT_FALSE(through.step(whole, data));
    EXPECT_EQ(steps.lloydCalls, p.epochs);
    EXPECT_EQ(steps.batchSomCalls, 0u);
}

TEST(WholeDataSteps, TheAppsBoundedLloydStepsGiveWayToWholeIterations) {
    // The app's k-means assigns 4096 points a step; over every cell each step is an iteration.
    const auto x = test::blobs(5000, 4, 5, 12);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = startModel(data, InitMethod::Sample, 3);
    auto trainer =
        makeTrainer(trainer_name::kKmeans, {{"epochs", 3}, {"stepPoints", 4096}}, *search);
    test::FakeWholeDataSteps steps(x.data(), data.n, data.d);
    ASSERT_TRUE(trainer->useWholeData(&steps));
    EXPECT_TRUE(trainer->step(m, data));
    EXPECT_EQ(steps.lloydCalls, 1u);
    EXPECT_NEAR(trainer->progress(), 1.0 / 3.0, 1e-12);
}

TEST(WholeDataSteps, BatchSomGetsItsOwnNeighbourhoodAndGivesTheCpuTrainersLandmarks) {
    const auto x = test::blobs(2500, 4, 5, 13);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    for (Neighbourhood shape : {Neighbourhood::Square, Neighbourhood::Gaussian}) {
        SCOPED_TRACE(shape == Neighbourhood::Square ? "square" : "gaussian");
        LandmarkModel cpu = startModel(data, InitMethod::Grid, 5);
        cpu.locked[6] |= kLockHigh;
        LandmarkModel whole = cpu;
        const auto locked = rowOf(cpu, 6);
        const size_t g = cpu.count();
        SomParams p;
        p.epochs = 4;
        p.radiusStart = 2.5f;  // known before the first step (else set by it)
        p.neighbourhood = shape;
        p.stepPoints = data.n;  // a whole epoch a CPU step
        BatchSomTrainer onCpu(p, *search), through(p, *search);
        test::FakeWholeDataSteps steps(x.data(), data.n, data.d);
        ASSERT_TRUE(through.useWholeData(&steps));
        for (size_t epoch = 0; epoch < p.epochs; ++epoch) {
            const float radius = through.radius();
            EXPECT_EQ(radius, onCpu.radius());
            const bool more = onCpu.step(cpu, data);
            EXPECT_EQ(through.step(whole, TrainingData{nullptr, 0, data.d}), more);
            EXPECT_EQ(steps.batchSomCalls, epoch + 1);
            // Weights from the trainer's neighbourhood shape and map distance at its radius.
            ASSERT_EQ(steps.lastWeights.size(), g * g);
            for (size_t j = 0; j < g; ++j)
                for (size_t c = 0; c < g; ++c)
                    ASSERT_EQ(
                        steps.lastWeights[j * g + c],
                        neighbourhoodWeight(shape, mapDistance(whole, j, c, p.topology), radius))
                        << "landmark " << j << ", winner " << c << ", epoch " << epoch;
            EXPECT_EQ(whole.high, cpu.high) << "epoch " << epoch;
            EXPECT_EQ(rowOf(whole, 6), locked);
            EXPECT_DOUBLE_EQ(through.progress(), onCpu.progress());
        }
        EXPECT_DOUBLE_EQ(through.progress(), 1.0);
        EXPECT_FALSE(through.step(whole, data));
        EXPECT_EQ(steps.lloydCalls, 0u);
    }
}

TEST(WholeDataSteps, LettingGoOfThemGoesBackToTheCpuPathUnchanged) {
    const auto x = test::blobs(3000, 4, 5, 14);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    test::FakeWholeDataSteps steps(x.data(), data.n, data.d);
    for (const char* name : {trainer_name::kKmeans, trainer_name::kBatchSom}) {
        SCOPED_TRACE(name);
        const nlohmann::json params = {{"epochs", 3}, {"stepPoints", 700}};
        const InitMethod init =
            std::string(name) == trainer_name::kKmeans ? InitMethod::Sample : InitMethod::Grid;
        LandmarkModel plain = startModel(data, init, 4), detached = plain;
        auto a = makeTrainer(name, params, *search), b = makeTrainer(name, params, *search);
        ASSERT_TRUE(b->useWholeData(&steps));
        ASSERT_TRUE(b->useWholeData(nullptr));
        while (a->step(plain, data)) ASSERT_TRUE(b->step(detached, data));
        EXPECT_FALSE(b->step(detached, data));
        EXPECT_EQ(detached.high, plain.high);
    }
    EXPECT_EQ(steps.lloydCalls + steps.batchSomCalls, 0u);
}

TEST(WholeDataSteps, OnlyKmeansAndTheBatchSomTakeThem) {
    const auto x = test::blobs(200, 3, 2, 15);
    auto search = makeCpuNearestSearch();
    test::FakeWholeDataSteps steps(x.data(), 200, 3);
    for (const char* name : {trainer_name::kSom, trainer_name::kPlsom, trainer_name::kOnlineKmeans,
                             trainer_name::kTsne})
        EXPECT_FALSE(makeTrainer(name, nlohmann::json::object(), *search)->useWholeData(&steps))
            << name;
    for (const char* name : {trainer_name::kKmeans, trainer_name::kBatchSom})
        EXPECT_TRUE(makeTrainer(name, nlohmann::json::object(), *search)->useWholeData(&steps))
            << name;
}

TEST(WholeDataSteps, CellsOfOtherDimensionsAreRefusedBeforeAnyStep) {
    const auto x = test::blobs(300, 4, 3, 16);
    const auto data = test::view(x, 4);
    auto search = makeCpuNearestSearch();
    LandmarkModel m = startModel(data, InitMethod::Sample, 2);
    const auto before = m.high;
    const auto other = test::blobs(300, 3, 3, 17);
    test::FakeWholeDataSteps steps(other.data(), 300, 3);
    LloydTrainer trainer(LloydParams{}, *search);
    trainer.useWholeData(&steps);
    EXPECT_THROW(trainer.step(m, data), InputError);
    EXPECT_EQ(m.high, before);
    EXPECT_EQ(steps.lloydCalls, 0u);
}

}  // namespace
}  // namespace sepal
