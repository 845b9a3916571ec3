#pragma once
// --bench-frames N: frames while a landmark is dragged in a circle (the model changes every
// frame, as in use) once the first picture has settled, then the time until the picture settles
// after the drag, then one JSON line of frame times, throughput and that time.
// With --bench-train the landmarks are trained instead (the trainer's steps every frame, which
// move them in data space: the neighbour cache's worst case, every cell searched again);
// `--bench-train kmeans` or `batch-som` picks the trainer, which steps over every cell where the
// GPU keeps them (the JSON says which trainer ran and over how many cells). A run that ends is
// started again; the frames that ended one are counted apart (`runs_ended`: on the GPU such a
// frame also projects every cell with the resting model), and `training_*` are the figures of
// the frames after which training still ran; `train_*_device_*` and `train_*_share` say what the
// device did in the steps over every cell.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/workspace.h"
#include "gui/frame_hook.h"

namespace sepal::gui {

/// The trainer `--bench-train WORD` names: "som", "batch-som" (or "batchsom") and "kmeans" give
/// their registry names; any other word gives "" (it is no trainer: a file, another option).
std::string benchTrainerName(const std::string& word);

/// What one frame cost, measured by the main loop.
struct FrameCost {
    double frameMs = 0;  ///< the whole frame
    double workMs = 0;   ///< projection and training
    double drawMs = 0;   ///< drawing and swapping
    double swapMs = 0;   ///< of drawMs, the swap: queued drawing finished, then handed over
    /// The next frame's training step ran during the swap (Scheduler::startStepAhead).
    bool steppedAhead = false;
    /// After the swap, the wait for that step (0 without one); counted in workMs too.
    double aheadWaitMs = 0;
    double layerRedrawMs = 0;  ///< the point layer's last complete redraw (0: none yet)
    bool layerBusy = false;    ///< the point layer is still redrawing (the picture not final)
    double uiMs = 0;           ///< events and the panels, before the work
    double uploadMs = 0;       ///< the GPU projection and the buffers' uploads
    /// The GPU projection's parts: map, project, unmap (zeros on the CPU path).
    std::array<double, 3> gpuPartsMs{};
    /// On the device (events): the last GPU projection and the CUDA splats' last picture (each
    /// repeated on frames without one; 0 before the first), to tell waiting for the GPU from
    /// its work.
    double gpuProjectDeviceMs = 0, splatDeviceMs = 0;
};

/// How the frames were drawn, for the JSON line.
struct FrameBenchContext {
    std::string glRenderer, glVendor, glVersion, glContext;  ///< OpenGL implementation
    double layerBudgetMs = 0;                                ///< point layer budget per frame
    bool interop = false;                                    ///< CUDA wrote the vertex buffer
    uint64_t gpuProjected = 0;                               ///< cells projected on the GPU
    std::string kernel;                                      ///< CUDA kernel (empty on the CPU)
    std::string pointPainter;  ///< what drew the point layer: "CUDA", "CPU" or "OpenGL"
};

/// Drives the drag and collects the frames; done() after `frames` frames (the JSON printed),
/// when it quits the application.
class FrameBench : public FrameHook {
  public:
    /// What changes the model every measured frame.
    enum Mode { Drag, Train };
    /// frames: how many to measure after the data is open and shown.
    explicit FrameBench(int frames, Mode mode = Drag) : m_frames(frames), m_mode(mode) {}
    /// Records the frame the application measured (frame()), then quits once done.
    void afterFrame(Application& app) override;
    /// Records one frame and moves the landmark; prints the result after the last.
    void frame(app::Workspace& ws, const FrameCost& cost, const FrameBenchContext& context);
    /// True once the result was printed.
    bool done() const { return m_done; }

  private:
    int m_frames;
    Mode m_mode;
    bool m_done = false;
    double m_start = 0, m_workMs = 0, m_drawMs = 0, m_swapMs = 0, m_layerMs = 0, m_uiMs = 0,
           m_uploadMs = 0;
    std::array<double, 3> m_gpuPartsMs{};
    double m_gpuDeviceMs = 0, m_splatDeviceMs = 0;  // summed over the drag's frames
    double m_dragEnd = 0, m_dragSeconds = 0;        // when the drag ended (0: still dragging)
    double m_waitStart = 0;  // when waiting for the first settled picture began
    uint64_t m_projectedStart = 0, m_gpuStart = 0, m_projectedEnd = 0, m_gpuEnd = 0;
    uint64_t m_gpuLast = 0;  // the device's projected count after the last measured frame
    size_t m_wholeFrames = 0;
    size_t m_trainCells = 0;         // the most cells one frame's training ran over
    bool m_trainEveryCell = false;   // some frame trained over every cell (on the GPU)
    double m_projectedSeconds = -1;  // after the drag, when every cell was projected
    // After the drag settled: a full sweep started (0: not yet) and how long it took (-1: not
    // measured: on a device, whose projection times are gpu_project_device_ms and sweep_work_ms).
    double m_sweepStart = 0, m_fullSweepSeconds = -1;
    bool m_sweepAsked = false;
    std::array<float, 2> m_centre{};
    std::vector<double> m_times;
    // --bench-train: the frames after which the run still trained, and the frames that ended a
    // run (its last step, and every cell projected with the resting model at once) before the
    // bench started another.
    std::vector<double> m_trainingTimes;
    // The same frames' parts (FrameCost): the training work's wall time, the frame's work (the
    // training's included), the picture's upload (a device's projection included), the drawing
    // and of it the swap, and the wait after the swap for a step run ahead.
    std::vector<double> m_trainingTrainMs, m_trainingWorkMs, m_trainingUploadMs, m_trainingDrawMs,
        m_trainingSwapMs, m_trainingAheadWaitMs;
    size_t m_trainingAhead = 0;  // of those frames, the ones whose step ran during the swap
    std::vector<double> m_firstOfRunTimes;  // of those frames, each restarted run's first
    bool m_runRestarted = false;            // the bench started a run again after a frame
    // And on the device: the projection's and the splats' times, and the cells projected.
    std::vector<double> m_trainingProjectDeviceMs, m_trainingSplatDeviceMs, m_trainingProjected;
    size_t m_runsEnded = 0;
    WholeDataFigures m_trainDevice;  // the measured frames' whole-data steps on the device
};

}  // namespace sepal::gui
