#include "app/gpu_projection.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <tuple>
#include <vector>

#include "app/projection_driver.h"
#include "core/common/bytes.h"
#include "core/common/error.h"

namespace sepal::app {

namespace {
// Frames the model must rest before the host copy is refreshed (each copy costs a transfer).
constexpr int kQuietFrames = 3;
// The drawn buffers on the same device: positions (2 floats) and colours (4 bytes) a cell, the
// colours' device copy that the CUDA splats read (4 bytes) and their tile order (16 bytes).
constexpr size_t kDrawnBytesPerCell = 32;
// Left free beside the points for the kernels' work space and the window.
constexpr size_t kDeviceReserveBytes = size_t(512) << 20;

/// The most frames a sweep takes: SEPAL_GPU_SLICES when it is a whole number from 2 to 4096,
/// else GpuProjection::kMostSweepFrames.
size_t mostSweepFrames(const char* slices) {
    if (!slices) return GpuProjection::kMostSweepFrames;
    char* end = nullptr;
    const unsigned long long frames = std::strtoull(slices, &end, 10);
    return end != slices && *end == '\0' && frames >= 2 && frames <= 4096
               ? size_t(frames)
               : GpuProjection::kMostSweepFrames;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}
}  // namespace

GpuProjection::GpuProjection(ResidentProjector& projector, DevicePositions& target,
                             Sweeper& hostCopy, Backend& backend, Log& log)
    : m_projector(projector),
      m_target(target),
      m_hostCopy(hostCopy),
      m_backend(backend),
      m_log(log),
      m_backendReason(backend.reason) {
    // SEPAL_GPU_SLICES=0: every cell in every training frame, for comparisons.
    const char* slices = std::getenv("SEPAL_GPU_SLICES");
    m_slicing = !(slices && std::string(slices) == "0");
    m_sweepFrames = mostSweepFrames(slices);
    // A drag moves landmarks only in 2D: with each cell's lists kept on the device, it
    // re-projects only the cells listing a moved landmark.
    m_projector.keepNeighbourLists(true);
    sayWhereProjected();
}

void GpuProjection::sayWhereProjected() {
    m_backend.reason =
        m_backendReason + (m_inProjector ? "; projecting on the device, drawn by CUDA from there"
                                         : "; projecting straight into the OpenGL vertex buffer");
}

void GpuProjection::keepPositionsInProjector(bool on) {
    if (on == m_inProjector) return;
    m_inProjector = on;
    m_ownValid = false;
    if (m_active) sayWhereProjected();
    m_model = {~0ull, ~0ull};  // projected again into wherever they are drawn from now
}

const float* GpuProjection::projectorPositions() const {
    return m_active && m_attached && m_inProjector && m_ownValid ? m_projector.ownPositions()
                                                                 : nullptr;
}

void GpuProjection::fillVertexBuffer() {
    if (!m_active || !m_inProjector || !m_hostStale || !m_state) return;
    try {
        copyToHost(*m_state);
    } catch (const std::exception& e) {
        giveUp(e.what());
    }
}

DeviceFigures GpuProjection::deviceFigures() const {
    return {m_active ? m_kernel : std::string(), m_projected, m_active && m_mapped, m_partsMs,
            m_projector.lastDeviceMs(),          m_memory};
}

void GpuProjection::fillStats(WorkStats& stats) const {
    stats.projectMs = m_frameMs;
    stats.fullSweepMs = m_projectMs;
    // While training frames project slices, how far the round of the cells is (the Stats
    // window's bar; "settled" once the model rests and every cell has taken it).
    const size_t n = m_state ? m_state->data.events() : 0;
    if (m_sweepDue > 0 && n > 0) stats.sweepProgress = 1.0 - double(m_sweepDue) / double(n);
    std::tie(stats.cacheBytes, stats.cacheRefusal) = m_projector.cacheState();
}

void GpuProjection::attachTarget(size_t n) {
    if (!m_mapped || m_inProjector || m_targetAttached) return;
    try {
        m_target.attach(n);
        m_targetAttached = true;
    } catch (const std::exception& e) {
        m_mapped = false;
        m_log.add(LogEntry::Warning, std::string("no CUDA-OpenGL interop (") + e.what() +
                                         "); the GPU projects through host memory");
    }
}

void GpuProjection::copyToHost(const State& st) {
    std::vector<float> xy(2 * st.data.events());
    m_projector.projectToHost(st.model, st.embed, xy.data());
    // The vertex buffer holds what was drawn only when the projection wrote into it.
    if (!m_mapped || m_inProjector) m_target.upload(xy.data(), st.data.events());
    if (m_hostCopy.positions().size() == xy.size()) m_hostCopy.accept(xy.data(), st.model);
    m_hostStale = false;
}

void GpuProjection::giveUp(const std::string& why) {
    fallBack(LogEntry::Error, "GPU projection failed, continuing on the CPU: " + why);
}

void GpuProjection::fallBack(LogEntry::Level level, const std::string& message) {
    m_log.add(level, message);
    m_backend.reason = message;
    m_kernel.clear();
    m_active = false;
    m_hostStale = false;
}

bool GpuProjection::takeData(const State& st) {
    const size_t n = st.data.events(), d = st.data.points.cols;
    // Planned before anything is allocated: cells that cannot be resident beside the drawn
    // buffers go to the CPU whole, with the figures, not after a failed upload.
    const size_t need = m_projector.residentBytes(n, d) + kDrawnBytesPerCell * n;
    const size_t available = m_projector.availableBytes();
    if (need + kDeviceReserveBytes > available) {
        fallBack(LogEntry::Warning, std::to_string(n) + " cells of " + std::to_string(d) +
                                        " dimensions need " + gigabytes(need) +
                                        " on the GPU, which has " + gigabytes(available) +
                                        " for them: the CPU projects them instead");
        return false;
    }
    // The drawn memory is sized for the cells before the device registers it.
    m_target.resize(n);
    m_targetAttached = false;
    m_projector.setPoints(st.data.points.data(), n, d);
    m_attached = true;
    m_ownValid = false;
    m_cursor = m_sweepDue = 0;
    m_cellsPerMs = 0;  // measured again on these cells
    m_data = st.version(Part::Data);
    m_model = {~0ull, ~0ull};
    return true;
}

float* GpuProjection::drawnMemory() {
    if (m_inProjector) return m_projector.ownPositions();
    if (!m_mapped) return nullptr;
    try {
        return m_target.map();
    } catch (const std::exception& e) {
        // OpenGL not on the NVIDIA driver (Mesa under Xvfb): the GPU still projects, through
        // host memory.
        m_mapped = false;
        m_log.add(LogEntry::Warning, std::string("no CUDA-OpenGL interop (") + e.what() +
                                         "); the GPU projects through host memory");
        return nullptr;
    }
}

void GpuProjection::releaseDrawn() {
    if (!m_inProjector) m_target.unmap();
}

void GpuProjection::recordProjection(std::chrono::steady_clock::time_point start, bool searched) {
    m_frameMs = millisecondsSince(start);
    const size_t cells = m_projector.lastProjected();
    m_projected += cells;
    // The rate of cells searched again (a slice, or every cell after the landmarks moved in data
    // space): what a slice is sized by. A drag's few cells from kept lists would say nothing.
    if (searched && cells > 0 && m_partsMs[1] > 0) m_cellsPerMs = double(cells) / m_partsMs[1];
    m_kernel = m_projector.lastKernel();  // what "auto" chose for this shape
    // Asked of the driver after a projection only: the window reads it every frame.
    m_memory = m_target.memoryLine();
}

bool GpuProjection::projectIntoDrawn(const std::function<void(float*)>& projectInto) {
    const auto start = std::chrono::steady_clock::now();
    float* device = drawnMemory();
    if (!device) return false;
    const auto mapped = std::chrono::steady_clock::now();
    m_partsMs[0] = millisecondsSince(start);
    try {
        projectInto(device);
    } catch (...) {
        releaseDrawn();
        throw;
    }
    const auto projected = std::chrono::steady_clock::now();
    m_partsMs[1] = millisecondsSince(mapped);
    releaseDrawn();
    m_partsMs[2] = millisecondsSince(projected);
    m_hostStale = true;
    m_quietFrames = 0;
    return true;
}

void GpuProjection::project(const State& st, bool searched) {
    const auto start = std::chrono::steady_clock::now();
    attachTarget(st.data.events());
    m_sweepDue = 0;
    if (projectIntoDrawn(
            [&](float* device) { m_projector.projectToDevice(st.model, st.embed, device); })) {
        m_ownValid = m_inProjector;
    } else {
        copyToHost(st);
        m_partsMs = {0, millisecondsSince(start), 0};
    }
    recordProjection(start, searched);
    m_projectMs = m_frameMs;
}

bool GpuProjection::holdsCells(const State& st) const {
    return m_active && m_attached && m_data == st.version(Part::Data);
}

bool GpuProjection::spreads(size_t n, double budgetMs) const {
    // Through host memory every projection is a whole one (the host copy is the drawn one).
    if (!m_slicing || (!m_inProjector && !m_mapped)) return false;
    return m_cellsPerMs > 0 && double(n) / m_cellsPerMs > budgetMs;
}

void GpuProjection::projectSlice(const State& st, double budgetMs) {
    const size_t n = st.data.events();
    const auto start = std::chrono::steady_clock::now();
    // As many cells as the budget pays for, but the whole picture within m_sweepFrames; the
    // round ends where it began, and a slice does not wrap (the next one starts at 0).
    size_t count = size_t(std::max(0.0, m_cellsPerMs * budgetMs));
    count = std::max(count, (n + m_sweepFrames - 1) / m_sweepFrames);
    if (m_cursor >= n) m_cursor = 0;
    count = std::min({count, m_sweepDue, n - m_cursor});
    if (!projectIntoDrawn([&](float* device) {
            m_projector.projectRangeToDevice(st.model, st.embed, m_cursor, count, device);
        }))
        return project(st, true);
    m_cursor += count;
    m_sweepDue -= count;
    // A round done while training goes on: the next begins (the drawn positions still mix the
    // models of the frames that placed them, until the model rests).
    if (m_sweepDue == 0) m_sweepDue = n;
    recordProjection(start, true);
}

void GpuProjection::frame(const State& st, double budgetMs, FrameUpdate& update) {
    m_state = &st;
    m_frameMs = 0;
    if (!m_active) return;
    const size_t n = st.data.events();
    if (n == 0 || st.model.count() < 2) return;
    try {
        if ((st.version(Part::Data) != m_data || !m_attached) && !takeData(st)) return;
        const std::array<uint64_t, 2> model = {st.model.highVersion, st.model.lowVersion};
        if (model != m_model) {
            // The landmarks moved in data space: every cell is due again. (By content: a layout
            // trainer's steps bump the data-space version too.)
            const bool firstModel = m_model[0] == ~0ull;
            const bool highMoved = !firstModel && st.model.high != m_high;
            m_model = model;
            if (firstModel || highMoved) m_high = st.model.high;  // not on every drag frame
            // Trained, where every cell costs more than the budget: a slice a frame, while the
            // drawn memory holds the whole picture; else (an edit, a fast device) every cell now.
            if (m_training && highMoved && spreads(n, budgetMs) && (m_ownValid || !m_inProjector)) {
                if (m_sweepDue == 0) m_sweepDue = n;  // a round of the cells begins
                projectSlice(st, budgetMs);
            } else {
                project(st, highMoved || firstModel);
            }
            update.deviceMoved = true;
            return;
        }
        // The model did not change (it rests, or a training frame made no step): the drawn
        // positions of earlier slices' models take it now, every cell at once.
        if (m_sweepDue > 0) {
            project(st, true);
            update.deviceMoved = true;
            return;
        }
        if (m_hostStale && ++m_quietFrames > kQuietFrames) copyToHost(st);
    } catch (const InputError& e) {
        // A parameter the user can change (k, smooth, adjust): say so; the GPU stays on.
        m_log.add(LogEntry::Error, std::string("cannot project: ") + e.what());
    } catch (const std::exception& e) {
        giveUp(e.what());
    }
}

}  // namespace sepal::app
