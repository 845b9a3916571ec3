#pragma once
// Who projects the cells: the scheduler drives one driver, chosen once the data and the backend
// are known: the CPU sweeper (cpu_projection.h), or a resident projector writing into the
// window's device memory (gpu_projection.h). A landmark drag takes the same route on both: an
// edit of the document, then the driver's next frame() re-projects the cells it moved.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/projection_sweeper.h"
#include "app/state.h"
#include "core/common/matrix.h"
#include "core/train/whole_data_steps.h"

namespace sepal::app {

/// What a frame's work changed, for the renderer to upload.
struct FrameUpdate {
    std::vector<Range> positions;  ///< ranges of new 2D positions
    bool allPositions = false;     ///< the point count changed: upload everything
    bool colours = false;          ///< colours were recomputed
    bool deviceMoved = false;      ///< the positions drawn from the device moved
};

/// Per-frame timings and counts for the Stats window and --bench-frames.
struct WorkStats {
    double projectMs = 0;          ///< projection work in the last frame
    double trainMs = 0;            ///< training work in the last frame
    size_t trainCells = 0;         ///< cells the refining trainer's last steps ran over
    bool trainEveryCell = false;   ///< they were every cell inside the gates (on the device)
    WholeDataFigures trainDevice;  ///< the device's figures of the last frame's whole-data steps
    double fullSweepMs = 0;        ///< projection work one sweep of every point costs
    double sweepProgress = 1;      ///< fraction of the current sweep done
    uint64_t sweeps = 0;           ///< completed sweeps
    uint64_t projected = 0;        ///< points projected since the data was opened
    size_t cacheBytes = 0;         ///< the CPU path's neighbour cache (0: not kept)
    std::string cacheRefusal;      ///< why the neighbour cache is not kept ("" while it is)
};

/// What a projection on a device did, for Stats and --bench-frames (empty on the CPU).
struct DeviceFigures {
    std::string kernel;                     ///< what the last projection ran (empty: none)
    uint64_t projected = 0;                 ///< cells projected on the device so far
    bool interop = false;                   ///< positions go straight into the drawn memory
    std::array<double, 3> partsMs{};        ///< mapping the drawn memory, projecting, unmapping
    double deviceMs = 0;                    ///< the last projection's device time (timing on)
    std::string memory = "n/a (CPU path)";  ///< device memory, "used / total MiB"
};

/// One way of projecting every cell, frame by frame.
class ProjectionDriver {
  public:
    virtual ~ProjectionDriver() = default;
    /// Projects what the model's change since the last call needs, within budgetMs of work
    /// where the work is done in the frame; appends the ranges of host positions that changed
    /// and sets update.deviceMoved when the drawn positions moved on the device.
    virtual void frame(const State& state, double budgetMs, FrameUpdate& update) = 0;
    /// Says whether a trainer is moving the landmarks every frame (the scheduler tells it before
    /// each frame): a device may then spread a projection of every cell over several frames.
    virtual void setTraining(bool) {}
    /// True while the host positions are those of the current model.
    virtual bool settled() const = 0;
    /// False once it gave up (a device failure): the scheduler projects on the CPU from then on.
    virtual bool working() const { return true; }
    /// Fills the projection's figures into the frame's stats.
    virtual void fillStats(WorkStats& stats) const = 0;
    /// True when the backend's resident projector holds the state's cells as they are now (it
    /// took this version of the data): other work on the device may copy them from there.
    virtual bool holdsCells(const State&) const { return false; }
    /// Projects every cell again from scratch (no neighbour cache: a full sweep, as after
    /// opening), for --bench-frames to time; false where it is not built (on a device).
    virtual bool sweepEverything() { return false; }

    // --- drawing from the device (the CPU driver draws from the host positions)
    /// True while the window draws positions the device wrote (not the host copy).
    virtual bool drawsOnDevice() const { return false; }
    /// Keeps the positions in the projector's own device memory and draws from there (the
    /// CUDA splats), or projects into the window's vertex buffer (off).
    virtual void keepPositionsInProjector(bool) {}
    /// The drawn positions in the projector's memory (n x 2 floats), valid until the next
    /// frame(); null when they are not there.
    virtual const float* projectorPositions() const { return nullptr; }
    /// Brings the vertex buffer up to the drawn positions (before OpenGL draws it elsewhere).
    virtual void fillVertexBuffer() {}
    /// Writes every drawn position again on the next frame: the drawn memory held other
    /// positions meanwhile (a polished picture).
    virtual void drawAgain() {}
    /// Times each projection on the device too (for --bench-frames).
    virtual void enableTiming(bool) {}
    /// The device's figures.
    virtual DeviceFigures deviceFigures() const { return {}; }
};

}  // namespace sepal::app
