// The scheduler's whole-data training (app/whole_data_training.h) with an in-memory backend
// factory: built once per change of the cells from the cells inside the gates, handed only to
// trainers that take it, and given up with a warning when building or a step fails.

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/scheduler.h"
#include "app/whole_data_training.h"
#include "core/knn/nearest_search.h"
#include "core/train/trainer_factory.h"
#include "core/train/trainer_names.h"
#include "fake_whole_data_steps.h"
#include "scoped_env.h"
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
    bool listed = false;  // the last cells came as a list of rows
    float lastFirst = -1;
    bool refuse = false;
    WholeDataStepsFactory factory() {
        return [this](const TrainingCells& cells) -> std::unique_ptr<WholeDataSteps> {
            ++builds;
            lastRows = cells.count();
            listed = cells.rows != nullptr;
            if (refuse) throw std::runtime_error("out of memory (fake)");
            auto steps = std::make_unique<test::FakeWholeDataSteps>(cells);
            lastFirst = steps->count() > 0 ? steps->cell(0)[0] : -1;
            return steps;
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
    EXPECT_FALSE(f.listed);  // without gates, every row of the data as it is
    EXPECT_EQ(whole.cells(), 100u);
    EXPECT_TRUE(logged(
        log, LogEntry::Info,
        "training over every cell on the GPU (100 cells, copied into host memory, ready in "));
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
    EXPECT_TRUE(f.listed);  // the rows inside, for the steps to take from where the cells are
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

/// The CPU backend with fake whole-data steps, each one built appended to `built`.
Backend fakeDeviceBackend(std::vector<test::FakeWholeDataSteps*>& built) {
    Backend backend = makeBackend("cpu");
    backend.wholeData = [&built](const TrainingCells& cells) -> std::unique_ptr<WholeDataSteps> {
        auto steps = std::make_unique<test::FakeWholeDataSteps>(cells);
        built.push_back(steps.get());
        return steps;
    };
    return backend;
}

// The device's figures of each frame's steps reach the scheduler's stats (what --bench-frames
// sums): every step counted once, none in a frame without training, none from a failed step.
TEST(WholeDataTraining, EachFramesStepsFiguresReachItsStats) {
    std::vector<test::FakeWholeDataSteps*> built;
    Log log;
    Document doc(log);
    Scheduler scheduler(fakeDeviceBackend(built), doc, log);
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

// The steps may copy the device projection's cells only while it holds the data as they are:
// not on the CPU, and not in the frame that changed the data, which trains before it projects.
TEST(WholeDataTraining, TheCellsAreResidentOnlyWhileTheDeviceHoldsTheirVersion) {
    // Declared before the scheduler, which holds them until it goes.
    HostResident device;
    HostPositions drawn;
    std::vector<test::FakeWholeDataSteps*> built;
    std::vector<bool> resident;  // what each build was told
    Backend backend = fakeDeviceBackend(built);
    backend.wholeData = [&resident, fake = backend.wholeData](const TrainingCells& cells) {
        resident.push_back(cells.resident);
        return fake(cells);
    };
    Log log;
    Document doc(log);
    Scheduler scheduler(std::move(backend), doc, log);
    openInto(doc, 2000);
    TrainingSettings t = doc.state().training;
    t.trainer = trainer_name::kKmeans;
    doc.setTraining(t);
    const auto trainAFrame = [&] {
        scheduler.startTraining();
        scheduler.frame(1e-6);
        scheduler.pauseTraining();
    };
    trainAFrame();  // on the CPU driver
    scheduler.projectOnDevice(&device, &drawn);
    scheduler.frame(8.0);  // the device takes the cells
    ASSERT_EQ(device.uploads, 1);
    ASSERT_TRUE(doc.setGates(doc.state().gating.gates, "again"));  // a new version: built again
    trainAFrame();
    // New cells while training runs: that frame builds before the device takes them.
    scheduler.startTraining();
    openInto(doc, 1500);
    scheduler.frame(1e-6);
    EXPECT_EQ(device.uploads, 2);
    scheduler.pauseTraining();
    ASSERT_TRUE(doc.setGates(doc.state().gating.gates, "again"));
    trainAFrame();
    EXPECT_EQ(resident, (std::vector<bool>{false, true, false, true}));
    EXPECT_EQ(built.back()->count(), 1500u);
}

/// A scheduler on fake whole-data steps over 2000 synthetic cells, taken in by a first frame,
/// with k-means started (not yet stepped).
struct KmeansOnFakeDevice {
    /// A frame's budget too short for a second step: one step a frame.
    static constexpr double kOneStep = 1e-6;
    std::vector<test::FakeWholeDataSteps*> built;  ///< the steps built, in order
    Log log;
    Document doc{log};
    Scheduler scheduler{fakeDeviceBackend(built), doc, log};
    KmeansOnFakeDevice() {
        openInto(doc, 2000);
        scheduler.frame(8.0);
        TrainingSettings t = doc.state().training;
        t.trainer = trainer_name::kKmeans;
        doc.setTraining(t);
        scheduler.startTraining();
    }
    /// One frame of one step at most.
    void frame() { scheduler.frame(kOneStep); }
    /// The next frame's step run ahead and waited for, as around the window's swap; whether it
    /// ran.
    bool stepAhead() {
        const bool started = scheduler.startStepAhead(kOneStep);
        scheduler.finishStepAhead();
        return started;
    }
    /// The Lloyd iterations the steps were asked for (0 before they are built).
    size_t lloydCalls() const { return built.empty() ? 0 : built[0]->lloydCalls; }
};

/// The scheduler's model landmarks after `frames` k-means frames over 2000 cells on fake
/// whole-data steps, each frame's step run ahead (startStepAhead after the frame) or inline.
std::vector<float> kmeansFrames(size_t frames, bool ahead, size_t* lloydCalls = nullptr) {
    KmeansOnFakeDevice k;
    for (size_t frame = 0; frame < frames; ++frame) {
        const bool steppedBefore = frame > 0 && ahead;
        const size_t callsBefore = k.lloydCalls();
        k.frame();
        EXPECT_EQ(k.built.size(), 1u) << "whole-data steps built";
        EXPECT_TRUE(k.scheduler.stats().trainEveryCell);
        // A frame after a step run ahead takes that step as its own: no second one.
        EXPECT_EQ(k.lloydCalls(), callsBefore + (steppedBefore ? 0 : 1)) << "frame " << frame;
        EXPECT_EQ(k.scheduler.stats().trainDevice.steps, 1u) << "frame " << frame;
        if (ahead && frame + 1 < frames) {
            EXPECT_TRUE(k.stepAhead());
            EXPECT_EQ(k.lloydCalls(), callsBefore + (steppedBefore ? 1 : 2));
        }
    }
    if (lloydCalls) *lloydCalls = k.lloydCalls();
    return k.doc.state().model.high;
}

// The next frame's step run on a worker thread while the window swaps (Scheduler::startStepAhead)
// is that frame's step: the same landmarks after the same frames, one step a frame.
TEST(WholeDataTraining, AStepRunAheadIsTheNextFramesOwn) {
    size_t inlineCalls = 0, aheadCalls = 0;
    const std::vector<float> inlineModel = kmeansFrames(4, false, &inlineCalls);
    const std::vector<float> aheadModel = kmeansFrames(4, true, &aheadCalls);
    EXPECT_EQ(inlineCalls, 4u);
    EXPECT_EQ(aheadCalls, 4u);
    ASSERT_FALSE(inlineModel.empty());
    EXPECT_EQ(aheadModel, inlineModel);
}

// Nothing runs ahead without training over every cell on the device, or with the switch off.
TEST(WholeDataTraining, OnlyADevicesStepOverEveryCellRunsAhead) {
    Log log;
    Document doc(log);
    Scheduler cpu(makeBackend("cpu"), doc, log);  // no whole-data steps: the subsample
    openInto(doc, 2000);
    cpu.frame(8.0);
    EXPECT_FALSE(cpu.startStepAhead(8.0)) << "not training";
    TrainingSettings t = doc.state().training;
    t.trainer = trainer_name::kKmeans;
    doc.setTraining(t);
    cpu.startTraining();
    cpu.frame(1e-6);  // one step: the run goes on
    ASSERT_TRUE(cpu.training());
    EXPECT_FALSE(cpu.stats().trainEveryCell);
    EXPECT_FALSE(cpu.startStepAhead(8.0)) << "a CPU step";
    cpu.pauseTraining();

    const test::ScopedEnv off("SEPAL_STEP_AHEAD", "0");
    std::vector<test::FakeWholeDataSteps*> built;
    Log log2;
    Document doc2(log2);
    Scheduler device(fakeDeviceBackend(built), doc2, log2);
    openInto(doc2, 2000);
    device.frame(8.0);  // takes the cells in, as the window's first frame does
    doc2.setTraining(t);
    device.startTraining();
    device.frame(1e-6);
    ASSERT_TRUE(device.stats().trainEveryCell);
    EXPECT_FALSE(device.startStepAhead(1e-6)) << "SEPAL_STEP_AHEAD=0";
}

// A step run ahead that ends the run is nobody's next step: the run started again takes a step
// of its own in its first frame.
TEST(WholeDataTraining, ARunEndedAheadLeavesTheNextRunsFirstStepToIt) {
    KmeansOnFakeDevice k;
    k.frame();
    bool endedAhead = false;
    for (int frame = 0; frame < 200; ++frame) {
        ASSERT_TRUE(k.stepAhead()) << "frame " << frame;
        // The run ended during the swap: started again before the next frame, as the bench's
        // hook and the Training window do.
        endedAhead = !k.scheduler.training();
        if (endedAhead) break;
        k.frame();
    }
    ASSERT_TRUE(endedAhead) << "k-means of 2000 cells did not end in 200 steps";
    ASSERT_EQ(k.built.size(), 1u);
    const size_t calls = k.lloydCalls();
    k.scheduler.startTraining();
    k.frame();
    EXPECT_EQ(k.lloydCalls(), calls + 1) << "the new run's first frame did not step";
    EXPECT_EQ(k.scheduler.stats().trainDevice.steps, 1u);
}

// Cells that changed (here the gates) are built into new steps by the frame's own step, never by
// a step run ahead during the swap.
TEST(WholeDataTraining, StepsToBuildAreTheFramesNotAStepAheads) {
    KmeansOnFakeDevice k;
    k.frame();
    ASSERT_TRUE(k.stepAhead());
    ASSERT_TRUE(k.doc.setGates(GateSelection{}, "No gates"));  // a change of the gates all the same
    k.frame();                                                 // takes the step run ahead
    ASSERT_TRUE(k.scheduler.training());
    EXPECT_EQ(k.built.size(), 1u);
    EXPECT_FALSE(k.scheduler.startStepAhead(KmeansOnFakeDevice::kOneStep))
        << "the steps are to be built again";
    k.frame();  // builds them and steps
    EXPECT_EQ(k.built.size(), 2u);
    EXPECT_TRUE(k.scheduler.stats().trainEveryCell);
    EXPECT_TRUE(k.stepAhead());
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
