// The app's GPU projection driver (app::GpuProjection), driven by the scheduler, with a device
// that is host memory: the memory plan sends cells that cannot be resident to the CPU before
// anything is uploaded, and the workspace is not idle (nothing scores or exports) until the
// host copy has caught up with the drawn positions.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "app/gpu_projection.h"
#include "app/synthetic.h"
#include "app/workspace.h"
#include "core/embedsom/embedsom.h"
#include "core/train/trainer_names.h"
#include "scoped_env.h"
#include "workspace_support.h"

namespace sepal::app {
namespace {

constexpr size_t kDefaultSweepFrames = GpuProjection::kMostSweepFrames;

/// The positions the driver keeps in the projector's own memory (empty while it offers none).
std::vector<float> keptPositions(const ProjectionDriver& gpu, size_t n) {
    const float* p = gpu.projectorPositions();
    return p ? std::vector<float>(p, p + 2 * n) : std::vector<float>();
}

std::unique_ptr<Workspace> trained(size_t n) {
    auto ws = openSynthetic(n);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    // Trained, projected, and the picture's score taken (a score under way would be the CPU's).
    while ((!ws->idle() || ws->state().model.count() == 0 || ws->quality().scoring ||
            !ws->quality().valid) &&
           std::chrono::steady_clock::now() < end) {
        ws->frame(8.0);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return ws;
}

TEST(GpuProjection, CellsThatDoNotFitTheDeviceGoToTheCpuBeforeAnyUpload) {
    // Declared before the workspace, whose scheduler holds them until it goes.
    HostResident device;
    device.available = 100000;  // 100 kB: 3000 cells of 10 dimensions need more
    HostPositions drawn;
    auto ws = trained(3000);
    ASSERT_GT(ws->state().model.count(), 0u);
    ws->projectOnDevice(&device, &drawn);
    EXPECT_TRUE(ws->projection().drawsOnDevice());
    const auto update = ws->frame(8.0);
    EXPECT_FALSE(update.deviceMoved);
    EXPECT_FALSE(ws->projection().drawsOnDevice());
    EXPECT_EQ(device.uploads, 0);
    bool said = false;
    for (const auto& e : ws->log())
        said = said || (e.text.find("3000 cells of 10 dimensions need") != std::string::npos &&
                        e.text.find("the CPU projects them instead") != std::string::npos);
    EXPECT_TRUE(said);
    EXPECT_NE(ws->backend().reason.find("need"), std::string::npos);
    // The CPU sweeper took over: the picture is the CPU projector's.
    for (int i = 0; i < 20000 && !ws->idle(); ++i) ws->frame(8.0);
    EXPECT_EQ(ws->positions(), directProjection(*ws));
}

TEST(GpuProjection, TheWorkspaceWaitsForTheHostCopyOfTheDrawnPositions) {
    HostResident device;
    HostPositions drawn;
    auto ws = trained(3000);
    ws->projectOnDevice(&device, &drawn);
    ASSERT_TRUE(ws->frame(8.0).deviceMoved);
    EXPECT_TRUE(ws->projection().working());
    EXPECT_EQ(device.uploads, 1);
    EXPECT_EQ(drawn.xy, directProjection(*ws));
    // The drawn positions moved past the host copy: not idle, so nothing scores them.
    EXPECT_FALSE(ws->idle());
    ws->edits().beginLandmarkDrag();
    const auto& low = ws->state().model.low;
    for (int frame = 0; frame < 5; ++frame) {
        ws->edits().dragLandmarks({0}, {low[0] + 0.1f, low[1] - 0.1f});
        EXPECT_TRUE(ws->frame(8.0).deviceMoved);
        EXPECT_FALSE(ws->idle());
        EXPECT_FALSE(ws->quality().scoring) << "scored positions the host has not seen";
        EXPECT_FALSE(ws->projection().settled());
    }
    ws->edits().endLandmarkDrag("drag");
    // A few quiet frames later the host copy follows, and the workspace rests.
    for (int frame = 0; frame < 10 && !ws->idle(); ++frame) ws->frame(8.0);
    EXPECT_TRUE(ws->idle());
    EXPECT_TRUE(ws->projection().settled());
    EXPECT_EQ(ws->positions(), directProjection(*ws));
    EXPECT_EQ(drawn.xy, ws->positions());
}

TEST(GpuProjection, PositionsKeptInTheProjectorReachTheVertexBufferOnceTheModelRests) {
    HostResident device;
    HostPositions drawn;
    auto ws = trained(3000);
    ws->projectOnDevice(&device, &drawn);
    auto& gpu = ws->projection();
    gpu.keepPositionsInProjector(true);
    EXPECT_NE(ws->backend().reason.find("drawn by CUDA"), std::string::npos)
        << ws->backend().reason;
    const auto projectorCopy = [&] { return keptPositions(gpu, ws->state().data.events()); };
    EXPECT_EQ(gpu.projectorPositions(), nullptr) << "offered before anything was projected";
    ASSERT_TRUE(ws->frame(8.0).deviceMoved);
    EXPECT_EQ(projectorCopy(), directProjection(*ws));
    EXPECT_TRUE(drawn.xy.empty()) << "the vertex buffer was written during the change";
    ws->edits().beginLandmarkDrag();
    const auto& low = ws->state().model.low;
    for (int frame = 0; frame < 3; ++frame) {
        ws->edits().dragLandmarks({1}, {low[2] + 0.2f, low[3]});
        EXPECT_TRUE(ws->frame(8.0).deviceMoved);
        EXPECT_EQ(projectorCopy(), directProjection(*ws));
        EXPECT_TRUE(drawn.xy.empty());
    }
    // A PNG export draws the vertex buffer: it is filled first, mid-drag.
    gpu.fillVertexBuffer();
    EXPECT_EQ(drawn.xy, directProjection(*ws));
    EXPECT_TRUE(gpu.settled());
    ws->edits().endLandmarkDrag("drag");
    for (int frame = 0; frame < 10 && !ws->idle(); ++frame) ws->frame(8.0);
    EXPECT_TRUE(ws->idle());
    EXPECT_EQ(ws->positions(), directProjection(*ws));
    EXPECT_EQ(drawn.xy, ws->positions()) << "the vertex buffer did not follow the host copy";
    // Back to the vertex buffer (the CUDA splats gave up): projected into it at once.
    gpu.keepPositionsInProjector(false);
    EXPECT_EQ(gpu.projectorPositions(), nullptr);
    drawn.xy.clear();
    ASSERT_TRUE(ws->frame(8.0).deviceMoved);
    EXPECT_EQ(drawn.xy, directProjection(*ws));
}

/// A training run on a device slower than the frames' budget, with the positions drawn from the
/// vertex buffer or kept in the projector (the CUDA splats' way); each slice at least
/// 1 / sweepFrames of the cells (the default, or SEPAL_GPU_SLICES=sweepFrames).
void trainOnASlowDevice(bool inProjector, size_t sweepFrames = kDefaultSweepFrames) {
    HostResident device;
    HostPositions drawn;
    auto ws = trained(3000);
    {
        const std::string frames = std::to_string(sweepFrames);
        const test::ScopedEnv slices("SEPAL_GPU_SLICES",
                                     sweepFrames == kDefaultSweepFrames ? nullptr : frames.c_str());
        ws->projectOnDevice(&device, &drawn);
    }
    auto& gpu = ws->projection();
    gpu.keepPositionsInProjector(inProjector);
    const size_t n = ws->state().data.events();
    const auto shown = [&] { return inProjector ? keptPositions(gpu, n) : drawn.xy; };
    // Every projection, whole or a slice, takes 20 ms: more than the frames' 8 ms budget.
    device.projectionMs = 20;
    ASSERT_TRUE(ws->frame(8.0).deviceMoved);
    ASSERT_EQ(shown(), directProjection(*ws));
    // An edit of the data-space landmarks is projected whole at once: it is not training.
    auto moved = ws->state().model;
    moved.high[0] += 0.5f;
    moved.touch();
    ws->edits().replaceModel(moved, "move");
    ASSERT_TRUE(ws->frame(8.0).deviceMoved);
    EXPECT_TRUE(device.ranges.empty());
    EXPECT_EQ(shown(), directProjection(*ws));

    TrainingSettings t = ws->state().training;
    t.trainer = trainer_name::kSom;
    ws->training().setSettings(t);
    ws->training().start();
    ASSERT_TRUE(ws->training().running());
    // A radius or rate changed while the SOM runs makes it train until paused: its epochs (at
    // most 100, the Training window's cap) could end the run within the frames that follow.
    t.alpha *= 0.5f;
    ws->training().setSettings(t);
    size_t next = 0, sliced = 0, smallest = n;
    for (size_t frame = 0; frame < sweepFrames + 8; ++frame) {
        ASSERT_TRUE(ws->training().running()) << "frame " << frame;
        const std::vector<float> before = shown();
        const size_t asked = device.ranges.size();
        ASSERT_TRUE(ws->frame(8.0).deviceMoved);
        ASSERT_EQ(device.ranges.size(), asked + 1) << "frame " << frame;
        const auto [begin, count] = device.ranges.back();
        // The slices follow one another through the cells, each at least 1 / sweepFrames of
        // them.
        EXPECT_EQ(begin, next == n ? 0 : next);
        EXPECT_GE(count, std::min(n - begin, (n + sweepFrames - 1) / sweepFrames));
        next = begin + count;
        sliced += count;
        if (next < n) smallest = std::min(smallest, count);  // not one cut at the end
        // The slice holds the current model's positions; the other cells stay as they were.
        const std::vector<float> now = directProjection(*ws), after = shown();
        ASSERT_EQ(after.size(), 2 * n);
        for (size_t i = 0; i < 2 * n; ++i) {
            const bool inSlice = i >= 2 * begin && i < 2 * (begin + count);
            ASSERT_EQ(after[i], inSlice ? now[i] : before[i]) << "value " << i;
        }
        // Stats' bar goes round with the slices, never "settled" while they mix models.
        EXPECT_NEAR(ws->stats().sweepProgress, double(next % n) / double(n), 1e-12);
        EXPECT_FALSE(gpu.settled());
    }
    EXPECT_GT(sliced, n) << "the slices went round the cells more than once";
    if (sweepFrames > kDefaultSweepFrames) {
        EXPECT_LT(smallest, (n + kDefaultSweepFrames - 1) / kDefaultSweepFrames)
            << "slices smaller than the default's";
    }
    // Paused, the model rests: every cell takes it in the next frame, and the workspace settles.
    ws->training().pause();
    const size_t asked = device.ranges.size();
    ASSERT_TRUE(ws->frame(8.0).deviceMoved);
    EXPECT_EQ(device.ranges.size(), asked);
    EXPECT_EQ(shown(), directProjection(*ws));
    for (int frame = 0; frame < 10 && !ws->idle(); ++frame) ws->frame(8.0);
    EXPECT_TRUE(ws->idle());
    EXPECT_EQ(ws->stats().sweepProgress, 1.0);
    EXPECT_EQ(ws->positions(), directProjection(*ws));
    EXPECT_EQ(drawn.xy, ws->positions()) << "the vertex buffer did not follow";
}

TEST(GpuProjection, TrainingOnASlowDeviceProjectsASliceAFrameAndEveryCellOnceTheModelRests) {
    trainOnASlowDevice(false);
}

TEST(GpuProjection, TrainingOnASlowDeviceSlicesThePositionsKeptInTheProjector) {
    trainOnASlowDevice(true);
}

TEST(GpuProjection, SlicesOfAnotherShareFollowTheEnvironment) {
    trainOnASlowDevice(true, 4);
    trainOnASlowDevice(false, 100);
}

}  // namespace
}  // namespace sepal::app
