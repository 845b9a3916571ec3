// The app's GPU leg (app::GpuProjection) with a device that is host memory: the memory plan sends
// cells that cannot be resident to the CPU before anything is uploaded, and the workspace is not
// idle (nothing scores or exports) until the host copy has caught up with the drawn positions.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "app/gpu_projection.h"
#include "app/synthetic.h"
#include "app/workspace.h"
#include "core/embedsom/embedsom.h"
#include "workspace_support.h"

namespace sepal::app {
namespace {

/// A ResidentProjector whose device is host memory: the CPU projector writes the positions,
/// and the device's free memory is what the test says.
class HostResident : public ResidentProjector {
  public:
    size_t available = size_t(1) << 40;  ///< what availableBytes() answers
    int uploads = 0;                     ///< setPoints calls
    std::vector<float> own;              ///< the projector's own positions

    void setPoints(const float* host, size_t n, size_t d) override {
        m_points = host, m_n = n, m_d = d;
        ++uploads;
    }
    ProjectionReport projectToDevice(const LandmarkModel& model, const EmbedParams& params,
                                     float* out) override {
        return m_cpu->project(m_points, m_n, m_d, model, params, out);
    }
    ProjectionReport projectToHost(const LandmarkModel& model, const EmbedParams& params,
                                   float* out) override {
        return projectToDevice(model, params, out);
    }
    float* ownPositions() override {
        own.resize(2 * m_n);
        return own.data();
    }
    std::string lastKernel() const override { return "host"; }
    void enableTiming(bool) override {}
    double lastDeviceMs() const override { return 0; }
    void keepNeighbourLists(bool) override {}
    std::pair<size_t, std::string> cacheState() const override { return {0, ""}; }
    size_t lastProjected() const override { return m_n; }
    size_t residentBytes(size_t n, size_t d) const override { return n * (d + 3) * 4; }
    size_t availableBytes() const override { return available; }

  private:
    std::unique_ptr<Projector> m_cpu = makeCpuProjector();
    const float* m_points = nullptr;
    size_t m_n = 0, m_d = 0;
};

/// The drawn positions in host memory.
class HostPositions : public DevicePositions {
  public:
    std::vector<float> xy;  ///< what was projected or uploaded
    void attach(size_t n) override { xy.assign(2 * n, 0.0f); }
    float* map() override { return xy.data(); }
    void unmap() override {}
    void upload(const float* p, size_t n) override { xy.assign(p, p + 2 * n); }
    std::string memoryLine() const override { return "host"; }
};

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
    auto ws = trained(3000);
    ASSERT_GT(ws->state().model.count(), 0u);
    HostResident device;
    device.available = 100000;  // 100 kB: 3000 cells of 10 dimensions need more
    HostPositions drawn;
    GpuProjection gpu(*ws, device, drawn);
    EXPECT_FALSE(gpu.frame());
    EXPECT_FALSE(gpu.active());
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
    auto ws = trained(3000);
    HostResident device;
    HostPositions drawn;
    GpuProjection gpu(*ws, device, drawn);
    ASSERT_TRUE(gpu.frame());
    EXPECT_TRUE(gpu.active());
    EXPECT_EQ(device.uploads, 1);
    EXPECT_EQ(drawn.xy, directProjection(*ws));
    // The drawn positions moved past the host copy: not idle, so nothing scores them.
    EXPECT_FALSE(ws->idle());
    ws->beginLandmarkDrag();
    const auto& low = ws->state().model.low;
    for (int frame = 0; frame < 5; ++frame) {
        ws->dragLandmarks({0}, {low[0] + 0.1f, low[1] - 0.1f});
        ws->frame(8.0);
        EXPECT_TRUE(gpu.frame());
        EXPECT_FALSE(ws->idle());
        EXPECT_FALSE(ws->quality().scoring) << "scored positions the host has not seen";
        EXPECT_TRUE(gpu.hostStale());
    }
    ws->endLandmarkDrag("drag");
    // A few quiet frames later the host copy follows, and the workspace rests.
    for (int frame = 0; frame < 10 && !ws->idle(); ++frame) {
        ws->frame(8.0);
        gpu.frame();
    }
    EXPECT_TRUE(ws->idle());
    EXPECT_FALSE(gpu.hostStale());
    EXPECT_EQ(ws->positions(), directProjection(*ws));
    EXPECT_EQ(drawn.xy, ws->positions());
}

TEST(GpuProjection, PositionsKeptInTheProjectorReachTheVertexBufferOnceTheModelRests) {
    auto ws = trained(3000);
    HostResident device;
    HostPositions drawn;
    GpuProjection gpu(*ws, device, drawn);
    gpu.keepPositionsInProjector(true);
    EXPECT_NE(ws->backend().reason.find("drawn by CUDA"), std::string::npos)
        << ws->backend().reason;
    const auto projectorCopy = [&] {
        const float* p = gpu.projectorPositions();
        return p ? std::vector<float>(p, p + 2 * ws->state().data.events()) : std::vector<float>();
    };
    EXPECT_EQ(gpu.projectorPositions(), nullptr) << "offered before anything was projected";
    ASSERT_TRUE(gpu.frame());
    EXPECT_EQ(projectorCopy(), directProjection(*ws));
    EXPECT_TRUE(drawn.xy.empty()) << "the vertex buffer was written during the change";
    ws->beginLandmarkDrag();
    const auto& low = ws->state().model.low;
    for (int frame = 0; frame < 3; ++frame) {
        ws->dragLandmarks({1}, {low[2] + 0.2f, low[3]});
        ws->frame(8.0);
        EXPECT_TRUE(gpu.frame());
        EXPECT_EQ(projectorCopy(), directProjection(*ws));
        EXPECT_TRUE(drawn.xy.empty());
    }
    // A PNG export draws the vertex buffer: it is filled first, mid-drag.
    gpu.fillVertexBuffer();
    EXPECT_EQ(drawn.xy, directProjection(*ws));
    EXPECT_FALSE(gpu.hostStale());
    ws->endLandmarkDrag("drag");
    for (int frame = 0; frame < 10 && !ws->idle(); ++frame) {
        ws->frame(8.0);
        gpu.frame();
    }
    EXPECT_TRUE(ws->idle());
    EXPECT_EQ(ws->positions(), directProjection(*ws));
    EXPECT_EQ(drawn.xy, ws->positions()) << "the vertex buffer did not follow the host copy";
    // Back to the vertex buffer (the CUDA splats gave up): projected into it at once.
    gpu.keepPositionsInProjector(false);
    EXPECT_EQ(gpu.projectorPositions(), nullptr);
    drawn.xy.clear();
    ASSERT_TRUE(gpu.frame());
    EXPECT_EQ(drawn.xy, directProjection(*ws));
}

}  // namespace
}  // namespace sepal::app
