#include "gui/frame_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/common/stopwatch.h"
#include "core/train/trainer_names.h"
#include "gui/application.h"
#include "nlohmann/json.hpp"

namespace sepal::gui {

std::string benchTrainerName(const std::string& word) {
    if (word == "som") return trainer_name::kSom;
    if (word == "batch-som" || word == trainer_name::kBatchSom) return trainer_name::kBatchSom;
    if (word == "kmeans") return trainer_name::kKmeans;
    return "";
}

namespace {
/// Mean, median, 95th percentile and longest of frame times (-1 each when there are none), and
/// how many took over three times the median.
struct FrameTimes {
    double mean = -1, median = -1, p95 = -1, max = -1;
    size_t overThreeMedians = 0;
};

FrameTimes summarise(std::vector<double> times) {
    if (times.empty()) return {};
    std::sort(times.begin(), times.end());
    const size_t n = times.size();
    FrameTimes t;
    t.mean = std::accumulate(times.begin(), times.end(), 0.0) / double(n);
    t.median = times[n / 2];
    t.p95 = times[std::min(n - 1, size_t(double(n) * 0.95))];
    t.max = times.back();
    t.overThreeMedians =
        size_t(times.end() - std::upper_bound(times.begin(), times.end(), 3 * t.median));
    return t;
}
}  // namespace

void FrameBench::afterFrame(Application& app) {
    frame(app.workspace(), app.frameCost(), app.drawingContext());
    if (m_done) app.quit(0);
}

void FrameBench::frame(app::Workspace& ws, const FrameCost& cost,
                       const FrameBenchContext& context) {
    const auto& st = ws.state();
    // The first frames (opening, training the recipe, the first sweep) are not measured.
    if (m_done || st.data.events() == 0 || ws.data().loading() || ws.training().recipeRunning())
        return;
    if (m_start == 0) {
        // The drag starts on the settled picture (every cell projected and drawn), as a user's
        // would; at most a minute is waited for it.
        if (m_waitStart == 0) m_waitStart = monotonicSeconds();
        if (!(ws.idle() && !cost.layerBusy) && monotonicSeconds() - m_waitStart < 60) return;
        m_start = monotonicSeconds();
        m_projectedStart = ws.stats().projected;
        m_gpuStart = m_gpuLast = context.gpuProjected;
        m_centre = {st.model.low[0], st.model.low[1]};
        if (m_mode == Train)
            ws.training().start();
        else
            ws.edits().beginLandmarkDrag();
        return;
    }
    if (m_dragEnd == 0) {
        m_times.push_back(cost.frameMs);
        // Cells the device projected in this frame (the count is the whole run's).
        const uint64_t gpuBefore = m_gpuLast;
        m_gpuLast = context.gpuProjected;
        // The layer finished within the frame: every cell was drawn where the model puts it.
        m_wholeFrames += !cost.layerBusy;
        m_workMs += cost.workMs;
        m_drawMs += cost.drawMs;
        m_swapMs += cost.swapMs;
        m_uiMs += cost.uiMs;
        m_uploadMs += cost.uploadMs;
        for (int i = 0; i < 3; ++i) m_gpuPartsMs[i] += cost.gpuPartsMs[i];
        m_gpuDeviceMs += cost.gpuProjectDeviceMs;
        m_splatDeviceMs += cost.splatDeviceMs;
        if (cost.layerRedrawMs > 0) m_layerMs = cost.layerRedrawMs;
        if (m_mode == Train) {
            m_trainCells = std::max(m_trainCells, ws.stats().trainCells);
            m_trainEveryCell = m_trainEveryCell || ws.stats().trainEveryCell;
            m_trainDevice += ws.stats().trainDevice;
            if (ws.training().running()) {
                m_trainingTimes.push_back(cost.frameMs);
                if (m_runRestarted) m_firstOfRunTimes.push_back(cost.frameMs);
                m_runRestarted = false;
                m_trainingTrainMs.push_back(ws.stats().trainMs);
                m_trainingWorkMs.push_back(cost.workMs);
                m_trainingUploadMs.push_back(cost.uploadMs);
                m_trainingDrawMs.push_back(cost.drawMs);
                m_trainingSwapMs.push_back(cost.swapMs);
                m_trainingAheadWaitMs.push_back(cost.aheadWaitMs);
                m_trainingAhead += cost.steppedAhead;
                m_trainingProjectDeviceMs.push_back(cost.gpuProjectDeviceMs);
                m_trainingSplatDeviceMs.push_back(cost.splatDeviceMs);
                m_trainingProjected.push_back(double(m_gpuLast - gpuBefore));
            } else {
                ++m_runsEnded;
                ws.training().start();  // a finished run starts again
                m_runRestarted = true;
            }
        } else {
            const float a = float(m_times.size()) * 0.05f, r = 0.05f;
            ws.edits().dragLandmarks(
                {0}, {m_centre[0] + r * std::cos(a), m_centre[1] + r * std::sin(a)});
        }
        if (int(m_times.size()) < m_frames) return;
        if (m_mode == Train)
            ws.training().pause();
        else
            ws.edits().endLandmarkDrag("bench");
        m_dragEnd = monotonicSeconds();
        m_dragSeconds = m_dragEnd - m_start;
        m_projectedEnd = ws.stats().projected;
        m_gpuEnd = context.gpuProjected;
        return;
    }
    // Settled: every cell projected with the last model and the point layer drawn with it.
    const bool settled = ws.idle() && !cost.layerBusy;
    const double settleSeconds = monotonicSeconds() - m_dragEnd;
    if (ws.idle() && m_projectedSeconds < 0) m_projectedSeconds = settleSeconds;
    if (!settled && settleSeconds < 120) return;
    // Then every cell projected again from scratch, timed to the settled picture: the full
    // sweep's wall time (the drag's throughput, of the cells near the landmark only, is not).
    if (!m_sweepAsked) {
        m_sweepAsked = true;
        if (settled && ws.projection().sweepEverything()) {
            m_sweepStart = monotonicSeconds();
            return;
        }
    }
    if (m_sweepStart > 0 && m_fullSweepSeconds < 0) {
        const double sweeping = monotonicSeconds() - m_sweepStart;
        if (!settled && sweeping < 120) return;
        if (settled) m_fullSweepSeconds = sweeping;
    }
    const double seconds = m_dragSeconds;
    const FrameTimes all = summarise(m_times), training = summarise(m_trainingTimes);
    const double steps = double(m_trainDevice.steps);
    const auto perStep = [&](double total) { return steps > 0 ? total / steps : -1.0; };
    const auto perCell = [&](double total) {
        return m_trainDevice.cells > 0 ? total / double(m_trainDevice.cells) : -1.0;
    };
    // Throughput while dragging: cells projected between the drag's first and last frames.
    double projected = double(m_projectedEnd - m_projectedStart);
    if (!context.kernel.empty()) projected = double(m_gpuEnd - m_gpuStart);
    const double frames = double(m_times.size());
    nlohmann::json j = {
        {"bench", "gui_frames"},
        {"mode", m_mode == Train ? "train" : "drag"},
        // What trained (the Training window's trainer) and whether over every cell on the GPU.
        {"trainer", m_mode == Train ? st.training.trainer : ""},
        {"train_every_cell", m_trainEveryCell},
        {"train_cells", m_trainCells},
        {"frames", m_times.size()},
        {"mean_ms", all.mean},
        {"median_ms", all.median},
        {"p95_ms", all.p95},
        {"fps", all.mean > 0 ? 1000.0 / all.mean : -1.0},
        // --bench-train: the frames after which training still ran, without those that ended a
        // run (-1: none, or a drag).
        {"training_frames", m_trainingTimes.size()},
        {"training_mean_ms", training.mean},
        {"training_median_ms", training.median},
        {"training_p95_ms", training.p95},
        // The longest, how many took over three times the median, and the median of the first
        // frames of the runs the bench started again (what a run's start costs).
        {"training_max_ms", training.max},
        {"training_long_frames", training.overThreeMedians},
        {"training_first_of_run_median_ms", summarise(m_firstOfRunTimes).median},
        {"training_fps", training.mean > 0 ? 1000.0 / training.mean : -1.0},
        {"runs_ended", m_runsEnded},
        // Their parts' medians: the training work (wall), the frame's work (the training's
        // included), the picture's upload (a device's projection included), the drawing.
        {"training_train_median_ms", summarise(m_trainingTrainMs).median},
        {"training_work_median_ms", summarise(m_trainingWorkMs).median},
        {"training_upload_median_ms", summarise(m_trainingUploadMs).median},
        {"training_draw_median_ms", summarise(m_trainingDrawMs).median},
        {"training_swap_median_ms", summarise(m_trainingSwapMs).median},
        // The frames whose training step ran on the device during the swap (SEPAL_STEP_AHEAD),
        // and the wait for it after the swap.
        {"training_ahead_frames", m_trainingAhead},
        {"training_ahead_wait_median_ms", summarise(m_trainingAheadWaitMs).median},
        // On the device: the frame's projection (a slice of the cells) and splats, and the
        // cells it projected.
        {"training_project_device_median_ms", summarise(m_trainingProjectDeviceMs).median},
        {"training_splat_device_median_ms", summarise(m_trainingSplatDeviceMs).median},
        {"training_projected_median", summarise(m_trainingProjected).median},
        // The whole-data steps on the device (-1: none measured): a step's device time, and the
        // shares of the cells its exact scan searched, its bounds kept and its nearest pass took
        // with one candidate, unmeasured.
        {"train_device_steps", m_trainDevice.steps},
        {"train_step_device_ms", perStep(m_trainDevice.deviceMs)},
        {"train_exact_scan_device_ms", perStep(m_trainDevice.exactScanMs)},
        {"train_exact_scan_share", perCell(double(m_trainDevice.exactScans))},
        {"train_kept_share", perCell(double(m_trainDevice.keptCells))},
        {"train_lone_share", perCell(double(m_trainDevice.loneCells))},
        // The mean share of the nearest pass's products a step computed (1: every landmark).
        {"train_product_share", perStep(m_trainDevice.productShare)},
        {"points", st.data.events()},
        {"landmarks", st.model.count()},
        {"dims", st.data.points.cols},
        {"backend", ws.backend().name},
        {"projected_per_s", projected / seconds},
        // Training at 10^8 cells on the GPU: a slice of the cells a frame (gpu_projection.h).
        {"projected_per_frame", projected / frames},
        {"full_sweep_s", m_fullSweepSeconds},
        {"sweep_work_ms", ws.stats().fullSweepMs},
        {"settle_s", settled ? settleSeconds : -1.0},
        // Of it: until every cell was projected with the last model.
        {"projected_s", m_projectedSeconds},
        {"neighbour_cache_mb", double(ws.stats().cacheBytes) / 1e6},
        {"neighbour_cache_off", ws.stats().cacheRefusal},
        {"work_ms", m_workMs / frames},
        {"draw_ms", m_drawMs / frames},
        // Of it: the swap, which finishes the drawing the driver still had queued (Mesa
        // rasterises there) and hands the frame to the window system (under Xvfb, a copy).
        {"swap_ms", m_swapMs / frames},
        {"ui_ms", m_uiMs / frames},
        {"upload_ms", m_uploadMs / frames},
        {"gpu_map_project_unmap_ms",
         {m_gpuPartsMs[0] / frames, m_gpuPartsMs[1] / frames, m_gpuPartsMs[2] / frames}},
        // The same on the device: what the GPU worked of the host's wait.
        {"gpu_project_device_ms", m_gpuDeviceMs / frames},
        {"splat_device_ms", m_splatDeviceMs / frames},
        {"point_redraw_ms", m_layerMs},
        {"layer_budget_ms", context.layerBudgetMs},
        // Which OpenGL drew the frames (NVIDIA, or Mesa's llvmpipe under Xvfb).
        {"gl_renderer", context.glRenderer},
        {"gl_vendor", context.glVendor},
        {"gl_version", context.glVersion},
        {"gl_context", context.glContext},
        {"cuda_gl_interop", context.interop},
        {"backend_reason", ws.backend().reason},
        {"cuda_kernel", context.kernel},
        {"point_painter", context.pointPainter},
        {"whole_picture_frames", m_wholeFrames}};
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    m_done = true;
}

}  // namespace sepal::gui
