// The scheduler's whole-data training (app/whole_data_training.h) with an in-memory backend
// factory: built once per change of the cells from the cells inside the gates, handed only to
// trainers that take it, and given up with a warning when building or a step fails.

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "app/scheduler.h"
#include "app/whole_data_training.h"
#include "core/knn/nearest_search.h"
#include "core/train/trainer_factory.h"
#include "core/train/trainer_names.h"
#include "fake_whole_data_steps.h"
#include "workspace_support.h"

namespace sepal::app {
namespace {

/// A state of n cells of d values (cell i's values all i), without gates.
State cellsState(size_t n, size_t d) {
    State s;
    s.data.points = Matrix(n, d);
    for (size_t i = 0; i < n; ++i)
        for (size_t t = 0; t < d; ++t) s.data.points.at(i, t) = float(i);
    return s;
}

/// A factory of fake steps that counts its builds and remembers the cells it was given.
struct CountingFactory {
    size_t builds = 0;
    size_t lastRows = 0;
    float lastFirst = -1;
    bool refuse = false;
    WholeDataStepsFactory factory() {
        return [this](const float* points, size_t n, size_t d) -> std::unique_ptr<WholeDataSteps> {
            ++builds;
            lastRows = n;
            lastFirst = n > 0 ? points[0] : -1;
            if (refuse) throw std::runtime_error("out of memory (fake)");
            return std::make_unique<test::FakeWholeDataSteps>(points, n, d);
        };
    }
};

bool logged(const Log& log, LogEntry::Level level, const std::string& part) {
    for (const auto& e : log.entries())
        if (e.level == level && e.text.find(part) != std::string::npos) return true;
    return false;
}

TEST(WholeDataTraining, BuiltOncePerChangeOfTheCellsForTheTrainersThatTakeIt) {
    Log log;
    CountingFactory f;
    WholeDataTraining whole(f.factory(), log);
    State state = cellsState(100, 3);
    auto search = makeCpuNearestSearch();
    auto som = makeTrainer(trainer_name::kSom, nlohmann::json::object(), *search);
    EXPECT_FALSE(whole.attach(*som, state, 50));
    EXPECT_EQ(f.builds, 0u);  // the online SOM never asks for every cell
    auto kmeans = makeTrainer(trainer_name::kKmeans, nlohmann::json::object(), *search);
    EXPECT_TRUE(whole.attach(*kmeans, state, 50));
    EXPECT_TRUE(whole.attach(*kmeans, state, 50));
    EXPECT_EQ(f.builds, 1u);
    EXPECT_EQ(whole.cells(), 100u);
    EXPECT_TRUE(logged(log, LogEntry::Info, "training over every cell on the GPU (100 cells)"));
    // A new trainer of the same cells takes the same steps.
    auto batch = makeTrainer(trainer_name::kBatchSom, nlohmann::json::object(), *search);
    EXPECT_TRUE(whole.attach(*batch, state, 50));
    EXPECT_EQ(f.builds, 1u);
    // The gates keep every other cell: built again from those.
    state.gating.inside.assign(100, 0);
    for (size_t i = 1; i < 100; i += 2) state.gating.inside[i] = 1;
    state.gating.kept = 50;
    whole.cellsChanged();
    EXPECT_TRUE(whole.attach(*batch, state, 50));
    EXPECT_EQ(f.builds, 2u);
    EXPECT_EQ(f.lastRows, 50u);
    EXPECT_EQ(f.lastFirst, 1.0f);
}

TEST(WholeDataTraining, AFailureFallsBackToTheSubsampleUntilTheCellsChange) {
    Log log;
    CountingFactory f;
    f.refuse = true;
    WholeDataTraining whole(f.factory(), log);
    const State state = cellsState(80, 2);
    auto search = makeCpuNearestSearch();
    auto kmeans = makeTrainer(trainer_name::kKmeans, nlohmann::json::object(), *search);
    EXPECT_FALSE(whole.attach(*kmeans, state, 40));
    EXPECT_TRUE(logged(log, LogEntry::Warning, "training on a subsample of 40 cells instead"));
    EXPECT_FALSE(whole.attach(*kmeans, state, 40));
    EXPECT_EQ(f.builds, 1u);  // not tried again every frame
    f.refuse = false;
    whole.cellsChanged();
    EXPECT_TRUE(whole.attach(*kmeans, state, 40));
    // A step that fails on the device: the trainer is back on the subsample, and stays there.
    whole.fail(*kmeans, "out of memory", 40);
    EXPECT_EQ(whole.cells(), 0u);
    EXPECT_TRUE(logged(log, LogEntry::Warning, "training over every cell on the GPU failed"));
    EXPECT_FALSE(whole.attach(*kmeans, state, 40));
    EXPECT_EQ(f.builds, 2u);
}

// The device's figures of each frame's steps reach the scheduler's stats (what --bench-frames
// sums): every step counted once, none in a frame without training, none from a failed step.
TEST(WholeDataTraining, EachFramesStepsFiguresReachItsStats) {
    std::vector<test::FakeWholeDataSteps*> built;
    Backend backend = makeBackend("cpu");
    backend.wholeData = [&](const float* points, size_t n,
                            size_t d) -> std::unique_ptr<WholeDataSteps> {
        auto steps = std::make_unique<test::FakeWholeDataSteps>(points, n, d);
        built.push_back(steps.get());
        return steps;
    };
    Log log;
    Document doc(log);
    Scheduler scheduler(std::move(backend), doc, log);
    openInto(doc, 2000);
    scheduler.frame(8.0);
    EXPECT_EQ(scheduler.stats().trainDevice.steps, 0u);

    TrainingSettings t = doc.state().training;
    t.trainer = trainer_name::kKmeans;
    doc.setTraining(t);
    scheduler.startTraining();
    // A budget too short for a second step: one step a frame, so that a total counted again
    // in a later frame would show.
    const double oneStep = 1e-6;
    for (size_t frame = 0; frame < 3; ++frame) {
        ASSERT_TRUE(scheduler.training());
        scheduler.frame(oneStep);
        const WorkStats& s = scheduler.stats();
        ASSERT_TRUE(s.trainEveryCell);
        ASSERT_EQ(built.size(), 1u);
        const WholeDataFigures& f = s.trainDevice;
        EXPECT_EQ(f.steps, 1u) << "frame " << frame;
        EXPECT_EQ(f.cells, 2000u);
        EXPECT_DOUBLE_EQ(f.deviceMs, test::kFakeStep.deviceMs);
        EXPECT_DOUBLE_EQ(f.exactScanMs, test::kFakeStep.exactScanMs);
        EXPECT_EQ(f.exactScans, test::kFakeStep.exactScans);
        EXPECT_EQ(f.keptCells, test::kFakeStep.keptCells);
        EXPECT_EQ(f.nearestSteps, 1u);
        EXPECT_EQ(f.loneCells, test::kFakeStep.loneCells);
    }
    EXPECT_EQ(built[0]->lloydCalls, 3u);
    // Paused after a training frame: the next frame trains nothing and says so.
    scheduler.pauseTraining();
    scheduler.frame(8.0);
    EXPECT_EQ(scheduler.stats().trainDevice.steps, 0u)
        << "figures left from the last training frame";
    // A step that fails on the device: the frame trains on the subsample, with no device figures.
    scheduler.startTraining();
    built[0]->failNext = true;
    scheduler.frame(oneStep);
    EXPECT_FALSE(scheduler.stats().trainEveryCell);
    EXPECT_EQ(scheduler.stats().trainDevice.steps, 0u);
}

TEST(WholeDataTraining, WithoutTheBackendsFactoryNothingIsBuilt) {
    Log log;
    WholeDataTraining whole(WholeDataStepsFactory{}, log);
    auto search = makeCpuNearestSearch();
    auto kmeans = makeTrainer(trainer_name::kKmeans, nlohmann::json::object(), *search);
    EXPECT_FALSE(whole.attach(*kmeans, cellsState(10, 2), 10));
    EXPECT_TRUE(log.entries().empty());
}

}  // namespace
}  // namespace sepal::app
