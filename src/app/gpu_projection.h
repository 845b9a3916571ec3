#pragma once
// The GPU path's projection driver: with a device-resident projector, every model change
// re-projects every cell on the device straight into the memory the window draws from (only the
// cells a drag touched, with the neighbour lists kept), and a host copy follows once the model
// rests (hovering, brushing, density colours, scoring and exports read it). While a trainer moves
// the landmarks in data space every frame and a projection of every cell would take longer than
// the frame's budget (10^8 cells), each frame re-projects the next slice of the cells instead,
// so that the picture follows the training at the frame rate; once the model rests, every cell
// is projected with it at once (through the neighbour cache that a later drag needs).

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/log.h"
#include "app/projection_driver.h"
#include "app/projection_sweeper.h"
#include "backend/backends.h"
#include "core/embedsom/resident_projector.h"

namespace sepal::app {

/// Device memory the positions are written into: the window's vertex buffer (an interface so
/// that the app knows nothing of OpenGL).
class DevicePositions {
  public:
    virtual ~DevicePositions() = default;
    /// Makes the memory hold n points (n x 2 floats), dropping what the device registered of
    /// it when it is reallocated.
    virtual void resize(size_t n) = 0;
    /// Prepares the memory for n points (n x 2 floats); throws std::runtime_error when the device
    /// cannot reach it (no interop: then the positions go through upload()).
    virtual void attach(size_t n) = 0;
    /// Device pointer to n x 2 floats, valid until unmap().
    virtual float* map() = 0;
    /// Gives the memory back for drawing.
    virtual void unmap() = 0;
    /// Host positions (n x 2), for when the memory cannot be mapped.
    virtual void upload(const float* xy, size_t n) = 0;
    /// Device memory in use, for the Stats window ("used / total MiB").
    virtual std::string memoryLine() const = 0;
};

/// Drives a ResidentProjector, frame by frame.
class GpuProjection : public ProjectionDriver {
  public:
    /// A sweep spread over frames reaches every cell within this many frames, whatever the
    /// budget: a smaller slice would leave the picture behind. Where the budget pays for fewer
    /// cells (10^8 cells at g 1024, where the training step alone passes it), a 64th keeps
    /// k-means at 16 frames a second on an H200 (a 32nd 12.6, a 16th 8.8: GPU_NOTES, "The
    /// twenty-sixth session's H200 runs"), for a round of about four seconds.
    /// SEPAL_GPU_SLICES=N (2 or more) sets another.
    static constexpr size_t kMostSweepFrames = 64;
    /// hostCopy: the sweeper that keeps the host positions (paused while this works); backend:
    /// its note says where the cells are projected.
    GpuProjection(ResidentProjector& projector, DevicePositions& target, Sweeper& hostCopy,
                  Backend& backend, Log& log);
    /// Projects when the data or the model changed. Bad parameters are logged and leave the GPU
    /// on; a device failure or cells that do not fit give up (working() turns false).
    void frame(const State& state, double budgetMs, FrameUpdate& update) override;
    void setTraining(bool on) override { m_training = on; }
    bool settled() const override { return !m_hostStale; }
    bool working() const override { return m_active; }
    bool holdsCells(const State& state) const override;
    void fillStats(WorkStats& stats) const override;
    bool drawsOnDevice() const override { return m_active; }
    /// On: the positions stay in the projector's own device memory and the picture is drawn
    /// from there (the CUDA splats), sparing a copy of every cell into the vertex buffer, which
    /// may live in host memory, on each change; the vertex buffer follows the host copy once
    /// the model rests. Off (the default): projected straight into the vertex buffer.
    void keepPositionsInProjector(bool on) override;
    const float* projectorPositions() const override;
    void fillVertexBuffer() override;
    void drawAgain() override { m_model = {~0ull, ~0ull}; }
    void enableTiming(bool on) override { m_projector.enableTiming(on); }
    DeviceFigures deviceFigures() const override;

  private:
    /// Says in Stats (the backend's note) where the positions are projected.
    void sayWhereProjected();
    /// Registers the vertex buffer with the device when positions are projected into it.
    void attachTarget(size_t n);
    /// Uploads new data (false when it cannot be resident: then it gives up).
    bool takeData(const State& state);
    /// Projects the current model into the drawn memory (or through the host); `searched`: the
    /// cells' nearest landmarks were searched again (its rate then sizes slices).
    void project(const State& state, bool searched);
    /// The device memory the positions are drawn from, mapped when that is the vertex buffer
    /// (null: none, the positions go through the host); unmap with releaseDrawn().
    float* drawnMemory();
    /// Gives the drawn memory back to OpenGL (nothing when it is the projector's own).
    void releaseDrawn();
    /// Runs projectInto on the drawn memory (mapped around it when it is the vertex buffer),
    /// timing the three parts; false, with nothing run, when the positions go through the host.
    bool projectIntoDrawn(const std::function<void(float*)>& projectInto);
    /// True when a change of the data-space landmarks should be projected over several frames:
    /// every cell would take longer than budgetMs at the last projection's rate.
    bool spreads(size_t n, double budgetMs) const;
    /// Projects the next slice of the rolling sweep, sized to budgetMs (at least 1 /
    /// m_sweepFrames of the cells).
    void projectSlice(const State& state, double budgetMs);
    /// Records the figures of a projection that started at `start`, and its rate when it
    /// searched every cell it placed.
    void recordProjection(std::chrono::steady_clock::time_point start, bool searched);
    void copyToHost(const State& state);
    void giveUp(const std::string& why);
    /// Hands projection back to the CPU, saying why in the log and in Stats.
    void fallBack(LogEntry::Level level, const std::string& message);

    ResidentProjector& m_projector;
    DevicePositions& m_target;
    Sweeper& m_hostCopy;
    Backend& m_backend;
    Log& m_log;
    const std::string m_backendReason;  // the backend's note before this added to it
    const State* m_state = nullptr;     // the state of the last frame (fillVertexBuffer)
    bool m_active = true, m_attached = false, m_mapped = true, m_hostStale = false;
    bool m_targetAttached = false, m_inProjector = false;
    bool m_ownValid = false;  // the projector's own buffer holds the current data's positions
    uint64_t m_data = 0;
    std::array<uint64_t, 2> m_model{};
    int m_quietFrames = 0;
    // The slices while training: the next cell, and the cells left in the current round of
    // them (0: no slice since the last projection of every cell, whose model the drawn
    // positions hold).
    size_t m_cursor = 0, m_sweepDue = 0;
    double m_cellsPerMs = 0;    // the last projection's rate (0: none yet)
    std::vector<float> m_high;  // the data-space landmarks last projected
    bool m_training = false;    // a trainer moves the landmarks every frame
    bool m_slicing = true;      // training frames may project a slice (SEPAL_GPU_SLICES)
    size_t m_sweepFrames = 0;   // the most frames a sweep takes (set at construction)
    uint64_t m_projected = 0;
    double m_frameMs = 0;    // projecting in the current frame (0 in frames without one)
    double m_projectMs = 0;  // the last projection
    std::array<double, 3> m_partsMs{};
    std::string m_kernel;
    std::string m_memory;  // the device's memory line, asked again only when it projects
};

}  // namespace sepal::app
