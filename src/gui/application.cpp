#include "gui/application.h"

#include <epoxy/gl.h>
// GLFW after epoxy: epoxy provides the GL declarations.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "app/autosave.h"
#include "app/autosave_folder.h"
#include "app/gpu_projection.h"
#include "gui/frame_bench.h"
#include "gui/gl_device_positions.h"
#include "gui/script_player.h"
#include "gui/window.h"
#include "render/capture.h"
#include "render/cuda_layer.h"
#include "render/overlay_renderer.h"
#include "render/point_layer.h"
#include "render/scatter_renderer.h"
#include "ui/biaxial_panel.h"
#include "ui/colour_key.h"
#include "ui/colour_panel.h"
#include "ui/counts_panel.h"
#include "ui/crash_recovery.h"
#include "ui/data_panel.h"
#include "ui/error_banner.h"
#include "ui/export_panel.h"
#include "ui/heatmap_panel.h"
#include "ui/landmarks_panel.h"
#include "ui/log_panel.h"
#include "ui/main_menu.h"
#include "ui/open_panel.h"
#include "ui/png_export.h"
#include "ui/populations_panel.h"
#include "ui/scene.h"
#include "ui/side_bars.h"
#include "ui/small_multiples.h"
#include "ui/stats_panel.h"
#include "ui/training_panel.h"

namespace sepal::gui {

namespace {
// Projection and training work per frame: what is left of a 30 fps frame after drawing, within
// bounds, so that slow drawing (software OpenGL) still leaves the UI responsive.
constexpr double kTargetFrameMs = 33.0;
constexpr double kMinBudgetMs = 4.0, kMaxBudgetMs = 24.0;
// Drawing points into the cached layer, per frame. Software OpenGL gets more of the frame; on a
// GPU the frame also waits for the projection and the interop mapping, and the H100 draws 10M
// splats in ~58 ms whether straight (measured 12.5 frames/s) or through the layer.
constexpr double kSoftwareLayerBudgetMs = 12.0;
constexpr double kHardwareLayerBudgetMs = 8.0;
constexpr float kLeftWidth = 330, kRightWidth = 300;
// Once the picture's cells are all projected the layer may take this many times its budget:
// nothing else needs the frame then, and the picture settles sooner.
constexpr double kIdleLayerShare = 2.0;
// After a drag, the CPU path projects the cells it moved within about a second; meanwhile the
// layer waits (a redraw would be stale when done, and would slow the projection down).
constexpr double kCatchUpSeconds = 1.5;

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// One of OpenGL's strings (GL_RENDERER, ...), empty when there is none.
std::string glString(GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return s ? s : "";
}

/// True when OpenGL runs on a GPU rather than in software (Mesa's llvmpipe under Xvfb).
bool hardwareOpenGl() {
    const std::string renderer = glString(GL_RENDERER);
    for (const char* software : {"llvmpipe", "softpipe", "SWR", "Software Rasterizer"})
        if (renderer.find(software) != std::string::npos) return false;
    return !renderer.empty();
}
}  // namespace

void dropCallback(GLFWwindow* window, int count, const char** paths) {
    auto* app = static_cast<Application*>(glfwGetWindowUserPointer(window));
    for (int i = 0; i < count; ++i) app->m_dropped.emplace_back(paths[i]);
}

Application::Application(Options options)
    : m_options(std::move(options)), m_workspace(m_options.backend) {
    m_ctx = std::make_unique<ui::UiContext>(m_workspace, m_camera);
    // The crashed session is looked for before this launch claims its own autosave file.
    m_autosaveFolder = std::make_unique<app::AutosaveFolder>(m_options.autosaveDir);
    auto crashed = m_autosaveFolder->lastCrashed();
    std::string autosavePath;
    try {
        autosavePath = m_autosaveFolder->claim();
    } catch (const std::exception& e) {
        m_workspace.log(app::LogEntry::Warning, std::string("autosave is off: ") + e.what());
    }
    m_autosave = std::make_unique<app::Autosaver>(autosavePath);
    m_recovery = std::make_unique<ui::CrashRecovery>(*m_autosaveFolder, std::move(crashed));
    m_window = createWindow(m_options, this, m_contentScale);
    initImGui(m_window, m_contentScale);
    m_points = std::make_unique<render::ScatterRenderer>();
    m_overlay = std::make_unique<render::OverlayRenderer>();
    m_layer = std::make_unique<render::PointLayer>();
    m_layerBudgetMs = hardwareOpenGl() ? kHardwareLayerBudgetMs : kSoftwareLayerBudgetMs;
    // Software OpenGL rasterises points slowly: the layer is splatted on the CPU instead
    // (SEPAL_CPU_SPLATS=0 keeps OpenGL, for comparisons).
    const char* splats = std::getenv("SEPAL_CPU_SPLATS");
    m_cpuSplats = !hardwareOpenGl() && !(splats && std::string(splats) == "0");
    // With the GPU projecting into the vertex buffers, CUDA splats the layer: OpenGL's points
    // cost the H100 about 60 ms for 10M cells, CUDA 1.5 ms (SEPAL_CUDA_SPLATS=0 keeps OpenGL).
    const char* cudaSplats = std::getenv("SEPAL_CUDA_SPLATS");
    m_cudaSplats = hardwareOpenGl() && render::CudaLayerPainter::available() &&
                   !(cudaSplats && std::string(cudaSplats) == "0");
    // The GPU leg: a device-resident projector writes straight into the vertex buffer.
    if (auto* resident = m_workspace.backend().resident) {
        m_devicePositions = std::make_unique<GlDevicePositions>(*m_points);
        m_gpu = std::make_unique<app::GpuProjection>(m_workspace, *resident, *m_devicePositions);
    }
    m_bars = std::make_unique<ui::SideBars>();
    m_banner = std::make_unique<ui::ErrorBanner>();
    auto& left = m_bars->left();
    left.push_back(std::make_unique<ui::OpenPanel>());
    left.push_back(std::make_unique<ui::DataPanel>());
    left.push_back(std::make_unique<ui::TrainingPanel>());
    left.push_back(std::make_unique<ui::LandmarksPanel>(m_canvas.selection()));
    left.push_back(std::make_unique<ui::ColourPanel>());
    left.push_back(std::make_unique<ui::BiaxialPanel>());
    auto& right = m_bars->right();
    right.push_back(std::make_unique<ui::PopulationsPanel>());
    right.push_back(std::make_unique<ui::HeatmapPanel>());
    right.push_back(std::make_unique<ui::CountsPanel>());
    right.push_back(std::make_unique<ui::ExportPanel>());
    right.push_back(std::make_unique<ui::StatsPanel>());
    right.push_back(std::make_unique<ui::LogPanel>());
    m_ctx->gpuMemory = m_gpu ? m_gpu->memoryLine() : "n/a (CPU path)";
    if (m_options.benchFrames > 0) {
        m_bench = std::make_unique<FrameBench>(
            m_options.benchFrames, m_options.benchTrain ? FrameBench::Train : FrameBench::Drag);
        if (m_gpu) m_gpu->enableTiming(true);
    }
    if (!m_options.script.empty())
        m_script = std::make_unique<ScriptPlayer>(*this, readScript(m_options.script));
    if (m_options.landmarks > 0) {
        app::TrainingSettings training = m_workspace.state().training;
        training.landmarks = m_options.landmarks;
        m_workspace.setTraining(training);
        m_workspace.seal();
    }
    if (!m_options.files.empty()) m_workspace.openFiles(m_options.files);
}

Application::~Application() {
    m_script.reset();
    m_deviceColours.reset();
    m_gpu.reset();
    m_devicePositions.reset();
    m_layer.reset();
    m_points.reset();
    m_overlay.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    if (m_window) glfwDestroyWindow(m_window);
    glfwTerminate();
}

int Application::run() {
    double last = now();
    while (!glfwWindowShouldClose(m_window) && !m_quit) {
        frame();
        double t = now();
        double ms = (t - last) * 1000.0;
        last = t;
        m_ctx->frameMs = ms;
        m_ctx->fps =
            m_ctx->fps == 0 ? 1000.0 / ms : 0.9 * m_ctx->fps + 0.1 * 1000.0 / std::max(ms, 0.01);
        double other = std::max(0.0, ms - m_lastWorkMs);
        m_budgetMs = std::clamp(0.8 * m_budgetMs + 0.2 * (kTargetFrameMs - other), kMinBudgetMs,
                                kMaxBudgetMs);
        if (m_bench) {
            const FrameBenchContext context{glString(GL_RENDERER),
                                            glString(GL_VENDOR),
                                            glString(GL_VERSION),
                                            m_options.egl ? "egl" : "glx",
                                            m_layerBudgetMs,
                                            m_gpu && m_gpu->active() && m_gpu->interop(),
                                            m_gpu ? m_gpu->projected() : 0,
                                            m_gpu ? m_gpu->kernel() : "",
                                            layerPainter()};
            m_bench->frame(
                m_workspace,
                {ms, m_lastWorkMs, m_lastDrawMs, m_layer->lastRedrawMs(), m_layer->busy(),
                 m_lastUiMs, m_lastUploadMs, m_gpu ? m_gpu->lastPartsMs() : std::array<double, 3>{},
                 m_gpu ? m_gpu->lastDeviceMs() : 0.0, m_layer->lastCudaDeviceMs()},
                context);
            if (m_bench->done()) m_quit = 0;
        }
    }
    m_autosave->save(m_workspace, m_camera.state(), true);
    m_autosaveFolder->release();
    return m_quit.value_or(0);
}

bool Application::idle() const {
    // Small multiples draw every frame without the layer, which then waits.
    return m_workspace.idle() && (!m_layer->busy() || m_smallMultiples) &&
           !(m_gpu && m_gpu->active() && m_gpu->hostStale());
}

void Application::autosaveNow() {
    m_autosave->save(m_workspace, m_camera.state(), true);
}

void Application::showPanel(const std::string& title, bool open) {
    m_bars->request(title, open);
}

void Application::exportPng(const ui::PngRequest& request) {
    if (m_gpu) m_gpu->fillVertexBuffer();  // the export draws the vertex buffer with OpenGL
    ui::exportPicture(request, *m_ctx, m_canvas, *m_points, *m_overlay);
}

void Application::handleShortcuts() {
    ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Z)) {
        if (io.KeyShift)
            m_workspace.redo();
        else
            m_workspace.undo();
    }
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Y)) m_workspace.redo();
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q)) m_ctx->quitRequested = true;
}

void Application::uploadPoints(const app::FrameUpdate& frameUpdate, bool& redraw) {
    app::FrameUpdate update = frameUpdate;
    const auto& xy = m_workspace.positions();
    size_t n = xy.size() / 2;
    redraw = !update.positions.empty() || update.colours;
    if (update.allPositions || m_points->size() != n) {
        // The buffer's storage is reallocated: the device must register it again.
        if (m_devicePositions) m_devicePositions->detach();
        if (m_gpu) m_gpu->detach();
        m_points->resize(n);
        m_points->uploadPositions(0, n, xy.data());
        update.colours = true;
        redraw = true;
    } else {
        for (const auto& r : update.positions)
            m_points->uploadPositions(r.first, r.count, xy.data() + 2 * r.first);
    }
    if (update.colours && m_workspace.colours().size() == 4 * n) {
        m_points->uploadColours(0, n, m_workspace.colours().data());
        m_deviceColoursStale = true;
    }
    if (m_gpu && m_gpu->active() && m_gpu->frame()) {
        redraw = true;
        m_ctx->gpuMemory = m_gpu->memoryLine();
    }
    m_ctx->gpuKernel = m_gpu && m_gpu->active() ? m_gpu->kernel() : "";
    m_ctx->pointPainter = layerPainter();
}

std::string Application::layerPainter() const {
    if (m_cudaSplats && m_gpu && m_gpu->active()) return "CUDA";
    if (m_cpuSplats && !(m_gpu && m_gpu->active())) return "CPU";
    return "OpenGL";
}

bool Application::catchingUpAfterDrag() {
    const double t = now();
    const bool dragging = m_workspace.dragging(), idle = m_workspace.idle();
    if (m_wasDragging && !dragging) m_dragEndedAt = t;
    m_wasDragging = dragging;
    // Positions final again: a redraw under way holds some of the old ones, so it starts anew.
    if (idle && !m_wasIdle && m_layer->busy()) m_layer->restart();
    m_wasIdle = idle;
    return !dragging && !idle && m_dragEndedAt > 0 && t - m_dragEndedAt < kCatchUpSeconds;
}

bool Application::paintLayerOnCuda(float pointSize, float alpha, int width, int height) {
    const size_t n = m_points->size();
    const float* xy = m_cudaSplats && m_gpu ? m_gpu->projectorPositions() : nullptr;
    const auto& colours = m_workspace.colours();
    // The projector holds the workspace's cells (frame() uploads a new data set first).
    if (!xy || n == 0 || n != m_workspace.state().data.events() || colours.size() != 4 * n)
        return false;
    if (!m_layer->busy()) return true;  // the picture is current
    try {
        if (!m_deviceColours) m_deviceColours = std::make_unique<render::CudaColours>();
        if (m_deviceColoursStale) m_deviceColours->upload(colours.data(), n);
        m_deviceColoursStale = false;
        m_layer->advanceOnCuda(xy, m_deviceColours->data(), n, m_camera, pointSize, alpha, width,
                               height);
        return true;
    } catch (const std::exception& e) {
        m_cudaSplats = false;
        m_deviceColours.reset();
        m_gpu->keepPositionsInProjector(false);  // OpenGL draws from the vertex buffer again
        m_workspace.log(app::LogEntry::Warning, std::string("CUDA cannot draw the points (") +
                                                    e.what() + "); OpenGL draws them");
        return false;
    }
}

void Application::fitWhenDue() {
    // Fit once per opened dataset and per trained or opened model: first to the landmarks, again
    // when the next sweep of every cell is done.
    uint64_t dataVersion = m_workspace.state().version(app::Part::Data);
    uint64_t fitKey = dataVersion * 1000003 + m_workspace.fitRequests();
    if (fitKey != m_fitForData) {
        m_fitForData = fitKey, m_fitted = false, m_canvas.fit(*m_ctx);
        m_fitAfterSweeps = m_workspace.stats().sweeps;
    }
    if (!m_fitted && m_workspace.stats().sweeps > m_fitAfterSweeps && m_workspace.idle())
        m_fitted = true, m_canvas.fit(*m_ctx);
    if (m_ctx->fitRequested) m_ctx->fitRequested = false, m_canvas.fit(*m_ctx);
}

void Application::frame() {
    const double frameStart = now();
    glfwPollEvents();
    if (!m_dropped.empty()) {
        m_workspace.openFiles(m_dropped, false);
        m_dropped.clear();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (m_script) injectInput(m_script->input());
    ImGui::NewFrame();

    int winW = 1, winH = 1, fbW = 1, fbH = 1;
    glfwGetWindowSize(m_window, &winW, &winH);
    glfwGetFramebufferSize(m_window, &fbW, &fbH);
    float fbScale = winW > 0 ? float(fbW) / float(winW) : 1.0f;

    ui::drawMainMenu(*m_ctx, *m_recovery, m_contentScale);
    m_recovery->drawDialog(*m_ctx, m_contentScale);
    float top = ImGui::GetFrameHeight();
    float left = kLeftWidth * m_contentScale, right = kRightWidth * m_contentScale;
    m_ctx->biaxialFrame.shown = false;  // set again by the Biaxial window when it is open
    m_bars->draw(*m_ctx, top, left, right);
    m_canvas.setArea(left, top, float(winW) - left - right, float(winH) - top);
    m_camera.setViewport(float(winW) - left - right, float(winH) - top);
    handleShortcuts();
    m_canvas.update(*m_ctx);
    const auto panels =
        ui::smallMultiplePanels(m_workspace.state(), m_camera.width(), m_camera.height());
    ui::drawPanelFrames(panels, m_canvas.origin());
    ui::drawColourKey(*m_ctx, m_canvas.origin(), m_contentScale);
    m_banner->draw(*m_ctx, m_canvas.origin());

    double workStart = now();
    m_lastUiMs = (workStart - frameStart) * 1000.0;
    auto update = m_workspace.frame(m_budgetMs);
    m_lastWorkMs = (now() - workStart) * 1000.0;
    bool redraw = false;
    const double uploadStart = now();
    // The CUDA layer reads the positions where the projector keeps them; small multiples are
    // drawn by OpenGL from the vertex buffer, which the projection then writes again.
    if (m_gpu) m_gpu->keepPositionsInProjector(m_cudaSplats && panels.empty());
    uploadPoints(update, redraw);
    m_lastUploadMs = (now() - uploadStart) * 1000.0;
    fitWhenDue();

    double drawStart = now();
    ImGui::Render();
    glViewport(0, 0, fbW, fbH);
    glClearColor(0.06f, 0.065f, 0.075f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    auto origin = m_canvas.origin();
    int vx = int(std::lround(origin[0] * fbScale));
    int vw = int(std::lround(m_camera.width() * fbScale));
    int vh = int(std::lround(m_camera.height() * fbScale));
    // The point layer is redrawn when what it shows changed, spread over frames when slow.
    const auto& view = m_workspace.state().view;
    auto cam = m_camera.state();
    std::array<float, 5> look = {cam[0], cam[1], cam[2], view.pointSize, view.alpha};
    // Back from small multiples, the overlay's layer is drawn anew.
    if (redraw || look != m_lastLook || panels.empty() == m_smallMultiples) m_layer->invalidate();
    m_lastLook = look;
    m_smallMultiples = !panels.empty();
    if (panels.empty()) {
        const auto& xy = m_workspace.positions();
        const auto& rgba = m_workspace.colours();
        // The CPU path's host positions are the drawn ones; the GPU's live on the device.
        const bool onCpu =
            m_cpuSplats && !(m_gpu && m_gpu->active()) && rgba.size() == 2 * xy.size();
        if (onCpu) {
            // Right after a drag the front picture stays (moved with the camera) until the
            // cells the drag moved are projected.
            if (!catchingUpAfterDrag())
                m_layer->advanceOnCpu(
                    xy.data(), rgba.data(), xy.size() / 2, m_camera, view.pointSize * fbScale,
                    view.alpha, vw, vh,
                    m_workspace.idle() ? kIdleLayerShare * m_layerBudgetMs : m_layerBudgetMs);
        } else if (!paintLayerOnCuda(view.pointSize * fbScale, view.alpha, vw, vh))
            m_layer->advance(*m_points, m_camera, view.pointSize * fbScale, view.alpha, vw, vh,
                             m_layerBudgetMs);
        glViewport(vx, 0, vw, vh);
        ui::drawScene(m_workspace, m_camera, fbScale, *m_points, *m_overlay,
                      {&m_canvas.selection(), m_canvas.hoveredLandmark(), m_layer.get()});
    }
    // Small multiples: each panel's samples drawn straight, in the panel's part of the canvas.
    for (const auto& p : panels) {
        const auto camera = ui::panelCamera(m_camera, p);
        glViewport(vx + int(std::lround(p.x * fbScale)),
                   vh - int(std::lround((p.y + p.height) * fbScale)),
                   int(std::lround(p.width * fbScale)), int(std::lround(p.height * fbScale)));
        for (const auto& [first, count] : p.ranges)
            m_points->drawRange(camera, view.pointSize * fbScale, view.alpha, first, count);
    }
    glViewport(0, 0, fbW, fbH);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    afterDrawing(fbW, fbH);
    glfwSwapBuffers(m_window);
    m_lastDrawMs = (now() - drawStart) * 1000.0;

    if (m_ctx->quitRequested) m_quit = 0;
    if (m_script) m_script->afterFrame();
    if (!m_options.screenshot.empty() && !m_script) {
        // --screenshot: wait until the data is open and projected, then capture and leave. A
        // file that failed to open is ready too: the picture then shows the error.
        // At most five minutes are waited (10^8 cells take a while to open at hundreds of
        // frames a second: a count of frames would give up too early).
        bool ready = idle() && (m_workspace.state().data.events() > 0 || m_options.files.empty() ||
                                m_workspace.errorCount() > 0);
        if (m_screenshotWaitStart == 0) m_screenshotWaitStart = now();
        if ((ready && ++m_settleFrames > 3) || now() - m_screenshotWaitStart > 300) {
            requestScreenshot(m_options.screenshot);
            m_options.screenshot.clear();
            m_quitAfterScreenshot = true;
        }
    }
    m_autosave->save(m_workspace, m_camera.state(), false);
}

void Application::afterDrawing(int fbW, int fbH) {
    for (const auto& path : m_screenshots) {
        try {
            render::writePng(path, render::readFramebuffer(fbW, fbH));
            std::printf("{\"screenshot\": \"%s\", \"width\": %d, \"height\": %d}\n", path.c_str(),
                        fbW, fbH);
        } catch (const std::exception& e) {
            m_ctx->error(e.what());
        }
    }
    if (!m_screenshots.empty() && m_quitAfterScreenshot) m_quit = 0;
    m_screenshots.clear();
    if (m_ctx->pngRequest) {
        exportPng(*m_ctx->pngRequest);
        m_ctx->pngRequest = nullptr;
    }
}

}  // namespace sepal::gui
