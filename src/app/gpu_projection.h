#pragma once
// The GPU leg of the picture: with a device-resident projector, every model change re-projects
// every cell on the device straight into the memory the window draws from, and a host copy
// follows once the model rests (hovering, brushing, density colours and exports read it).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/log.h"
#include "core/embedsom/resident_projector.h"

namespace sepal::app {

class Workspace;

/// Device memory the positions are written into: the window's vertex buffer (an interface so
/// that the app knows nothing of OpenGL).
class DevicePositions {
  public:
    virtual ~DevicePositions() = default;
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

/// Drives a ResidentProjector for the workspace, frame by frame.
class GpuProjection {
  public:
    /// Takes over projection from the workspace's CPU sweeper until a device failure.
    GpuProjection(Workspace& workspace, ResidentProjector& projector, DevicePositions& target);
    /// Projects when the data or the model changed; true when the drawn positions changed.
    /// Bad parameters are logged and leave the GPU on; a device failure hands projection back to
    /// the CPU (active() turns false).
    bool frame();
    /// False once a device failure sent projection back to the CPU.
    bool active() const { return m_active; }
    /// True while the host copy of the positions lags the drawn ones.
    bool hostStale() const { return m_hostStale; }
    /// The drawn memory was reallocated: attach again before the next projection.
    void detach() { m_attached = m_targetAttached = m_ownValid = false; }
    /// On: the positions stay in the projector's own device memory and the picture is drawn
    /// from there (the CUDA splats), sparing a copy of every cell into the vertex buffer, which
    /// may live in host memory, on each change; the vertex buffer follows the host copy once
    /// the model rests. Off (the default): projected straight into the vertex buffer.
    void keepPositionsInProjector(bool on);
    /// The drawn positions on the device (n x 2 floats) while they stay in the projector and
    /// a projection of the current data has filled them, valid until the next frame(); null
    /// otherwise.
    const float* projectorPositions() const;
    /// Brings the vertex buffer up to the drawn positions while they stay in the projector, for
    /// OpenGL drawing outside the layer (a PNG export).
    void fillVertexBuffer();
    /// What the last projection ran (a kernel name; empty when none).
    const std::string& kernel() const { return m_kernel; }
    /// Cells projected on the device so far (for --bench-frames).
    uint64_t projected() const { return m_projected; }
    /// True while positions go straight into the drawn memory (CUDA-OpenGL interop).
    bool interop() const { return m_mapped; }
    /// Times each projection on the device too (for --bench-frames).
    void enableTiming(bool on) { m_projector.enableTiming(on); }
    /// Milliseconds the last projection took on the device (0 without enableTiming).
    double lastDeviceMs() const { return m_projector.lastDeviceMs(); }
    /// Device memory line for the Stats window.
    std::string memoryLine() const { return m_target.memoryLine(); }
    /// Milliseconds of the last projection's parts: mapping the drawn memory, projecting,
    /// unmapping it (for --bench-frames).
    std::array<double, 3> lastPartsMs() const { return m_partsMs; }

  private:
    /// Says in Stats (the backend's note) where the positions are projected.
    void sayWhereProjected();
    /// Registers the vertex buffer with the device when positions are projected into it.
    void attachTarget(size_t n);
    void copyToHost();
    void giveUp(const std::string& why);
    /// Hands projection back to the CPU sweeper, saying why in the log and in Stats.
    void fallBack(LogEntry::Level level, const std::string& message);
    Workspace& m_workspace;
    ResidentProjector& m_projector;
    DevicePositions& m_target;
    bool m_active = true, m_attached = false, m_mapped = true, m_hostStale = false;
    bool m_targetAttached = false, m_inProjector = false;
    bool m_ownValid = false;  // the projector's own buffer holds the current data's positions
    uint64_t m_data = 0;
    std::array<uint64_t, 2> m_model{};
    int m_quietFrames = 0;
    uint64_t m_projected = 0;
    std::array<double, 3> m_partsMs{};
    std::string m_kernel;
};

}  // namespace sepal::app
