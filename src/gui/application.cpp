#include "gui/application.h"

#include <epoxy/gl.h>
// GLFW after epoxy: epoxy provides the GL declarations.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>

#include "core/common/stopwatch.h"
#include "gui/autosaving.h"
#include "gui/canvas_painter.h"
#include "gui/screenshot_hook.h"
#include "gui/script_player.h"
#include "gui/window.h"
#include "render/capture.h"
#include "ui/colour_key.h"
#include "ui/crash_recovery.h"
#include "ui/error_banner.h"
#include "ui/main_menu.h"
#include "ui/panel_table.h"
#include "ui/session_open.h"
#include "ui/side_bars.h"
#include "ui/small_multiples.h"

namespace sepal::gui {

namespace {
// Projection and training work per frame: what is left of a 30 fps frame after drawing, within
// bounds, so that slow drawing (software OpenGL) still leaves the UI responsive.
constexpr double kTargetFrameMs = 33.0;
constexpr double kMinBudgetMs = 4.0, kMaxBudgetMs = 24.0;
constexpr float kLeftWidth = 330, kRightWidth = 300;

/// One of OpenGL's strings (GL_RENDERER, ...), empty when there is none.
std::string glString(GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return s ? s : "";
}
}  // namespace

void dropCallback(GLFWwindow* window, int count, const char** paths) {
    auto* app = static_cast<Application*>(glfwGetWindowUserPointer(window));
    for (int i = 0; i < count; ++i) app->m_dropped.emplace_back(paths[i]);
}

Application::Application(Options options)
    : m_options(std::move(options)), m_workspace(m_options.backend) {
    m_ctx = std::make_unique<ui::UiContext>(m_workspace, m_camera);
    // Before the window: the crashed session is looked for before this launch claims its file.
    auto autosaving = std::make_unique<Autosaving>(m_options.autosaveDir, m_workspace);
    m_autosaving = autosaving.get();
    m_hooks.push_back(std::move(autosaving));
    m_window = createWindow(m_options, this, m_contentScale);
    initImGui(m_window, m_contentScale);
    m_painter = std::make_unique<CanvasPainter>(m_workspace, m_options.points);
    m_bars = std::make_unique<ui::SideBars>();
    m_banner = std::make_unique<ui::ErrorBanner>();
    ui::addPanels(*m_bars, m_canvas);
    if (m_options.benchFrames > 0) {
        m_hooks.push_back(std::make_unique<FrameBench>(
            m_options.benchFrames, m_options.benchTrain ? FrameBench::Train : FrameBench::Drag));
        m_workspace.projection().enableTiming(true);
    }
    if (!m_options.script.empty())
        m_hooks.push_back(std::make_unique<ScriptPlayer>(*this, readScript(m_options.script)));
    else if (!m_options.screenshot.empty())
        m_hooks.push_back(
            std::make_unique<ScreenshotHook>(m_options.screenshot, !m_options.files.empty()));
    if (m_options.landmarks > 0 || !m_options.benchTrainer.empty()) {
        app::TrainingSettings training = m_workspace.state().training;
        if (m_options.landmarks > 0) training.landmarks = m_options.landmarks;
        if (!m_options.benchTrainer.empty()) training.trainer = m_options.benchTrainer;
        m_workspace.training().setSettings(training);
        m_workspace.edits().seal();
    }
    if (!m_options.files.empty()) ui::openPaths(*m_ctx, m_options.files, false);
}

Application::~Application() {
    m_hooks.clear();
    m_painter.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    if (m_window) glfwDestroyWindow(m_window);
    glfwTerminate();
}

int Application::run() {
    double last = monotonicSeconds();
    while (!glfwWindowShouldClose(m_window) && !m_quit) {
        frame();
        const double t = monotonicSeconds();
        timeFrame((t - last) * 1000.0);
        last = t;
        for (auto& hook : m_hooks) hook->afterFrame(*this);
    }
    for (auto& hook : m_hooks) hook->atExit(*this);
    return m_quit.value_or(0);
}

void Application::timeFrame(double ms) {
    m_cost.frameMs = ms;
    m_ctx->frameMs = ms;
    m_ctx->fps =
        m_ctx->fps == 0 ? 1000.0 / ms : 0.9 * m_ctx->fps + 0.1 * 1000.0 / std::max(ms, 0.01);
    const double other = std::max(0.0, ms - m_cost.workMs);
    m_budgetMs =
        std::clamp(0.8 * m_budgetMs + 0.2 * (kTargetFrameMs - other), kMinBudgetMs, kMaxBudgetMs);
}

FrameBenchContext Application::drawingContext() const {
    return {glString(GL_RENDERER),      glString(GL_VENDOR),
            glString(GL_VERSION),       m_options.egl ? "egl" : "glx",
            m_painter->layerBudgetMs(), m_device.interop,
            m_device.projected,         m_device.kernel,
            m_painter->drawnBy()};
}

bool Application::idle() const {
    return m_workspace.idle() && m_painter->settled();
}

ui::CrashRecovery& Application::recovery() {
    return m_autosaving->recovery();
}

void Application::autosaveNow() {
    m_autosaving->saveNow(*this);
}

void Application::showPanel(const std::string& title, bool open) {
    m_bars->request(title, open);
}

void Application::exportPng(const ui::PngRequest& request) {
    m_painter->exportPng(request, *m_ctx, m_canvas);
}

void Application::handleShortcuts() {
    ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return;
    auto& edits = m_workspace.edits();
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Z)) io.KeyShift ? edits.redo() : edits.undo();
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Y)) edits.redo();
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q)) m_ctx->quitRequested = true;
    // File's shortcuts, as its menu shows them.
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O)) m_ctx->panelToOpen = "Open";
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_E)) m_ctx->panelToOpen = "Export";
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S)) ui::saveSession(*m_ctx);
}

void Application::fitWhenDue() {
    // Fit once per opened dataset and per trained or opened model: first to the landmarks, again
    // when the next sweep of every cell is done.
    uint64_t dataVersion = m_workspace.state().version(app::Part::Data);
    uint64_t fitKey = dataVersion * 1000003 + m_workspace.document().fitRequests();
    const std::string& title = m_workspace.colourKey().title;
    const auto fit = [&] { m_canvas.fit(*m_ctx), m_fitTitle = title; };
    if (fitKey != m_fitForData && m_ctx->sessionView) {
        // A loaded session keeps the view it was saved with (a fit moved it).
        m_camera.setState(*m_ctx->sessionView);
        m_ctx->sessionView.reset();
        m_fitForData = fitKey, m_fitted = true, m_fitTitle = title;
    } else if (fitKey != m_fitForData) {
        m_fitForData = fitKey, m_fitted = false, fit();
        m_fitAfterSweeps = m_workspace.stats().sweeps;
    }
    if (!m_fitted && m_workspace.stats().sweeps > m_fitAfterSweeps && m_workspace.idle())
        m_fitted = true, fit();
    if (m_ctx->fitRequested) m_ctx->fitRequested = false, fit();
    // A key of another colouring than the fit's that grows (a legend after a colour bar) moves
    // the untouched fitted view clear of it; a view the user has panned or zoomed stays where it
    // is, and so does the view when the fit's own legend gains a row (a lasso's population).
    const auto& key = m_ctx->keySize;
    const bool grew = key[0] > m_keySize[0] + 1 || key[1] > m_keySize[1] + 1;
    if (grew && title != m_fitTitle && m_canvas.showsFit(m_ctx->camera)) fit();
    m_keySize = key;
}

void Application::frame() {
    const double frameStart = monotonicSeconds();
    glfwPollEvents();
    if (!m_dropped.empty()) {
        ui::openPaths(*m_ctx, m_dropped, false);
        m_dropped.clear();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    InputFrame input;
    for (auto& hook : m_hooks)
        if (hook->input(input)) injectInput(input);
    ImGui::NewFrame();

    int winW = 1, winH = 1, fbW = 1, fbH = 1;
    glfwGetWindowSize(m_window, &winW, &winH);
    glfwGetFramebufferSize(m_window, &fbW, &fbH);
    const float fbScale = winW > 0 ? float(fbW) / float(winW) : 1.0f;

    ui::drawMainMenu(*m_ctx, recovery(), m_contentScale);
    recovery().drawDialog(*m_ctx, m_contentScale);
    const float top = ImGui::GetFrameHeight();
    const float left = kLeftWidth * m_contentScale, right = kRightWidth * m_contentScale;
    m_ctx->biaxialFrame.shown = false;  // set again by the Biaxial window when it is open
    m_bars->draw(*m_ctx, top, left, right);
    m_canvas.setArea(left, top, float(winW) - left - right, float(winH) - top);
    m_camera.setViewport(float(winW) - left - right, float(winH) - top);
    handleShortcuts();
    if (!m_ctx->panelToOpen.empty())
        showPanel(m_ctx->panelToOpen, true), m_ctx->panelToOpen.clear();
    m_canvas.update(*m_ctx);
    const auto panels =
        ui::smallMultiplePanels(m_workspace.state(), m_camera.width(), m_camera.height());
    ui::drawPanelFrames(panels, m_canvas.origin());
    ui::drawColourKey(*m_ctx, m_canvas.origin(), m_contentScale);
    m_banner->draw(*m_ctx, m_canvas.origin());

    const double workStart = monotonicSeconds();
    m_cost.uiMs = (workStart - frameStart) * 1000.0;
    m_painter->prepare(!panels.empty());
    const auto update = m_workspace.frame(m_budgetMs);
    const double uploadStart = monotonicSeconds();
    m_painter->upload(update);
    const double uploadEnd = monotonicSeconds();
    // Projecting on the device is the picture's upload, not work the budget adapts: counted as
    // the GPU leg of the upload, as when the window drove it.
    const double deviceMs =
        m_workspace.projection().drawsOnDevice() ? m_workspace.stats().projectMs : 0.0;
    m_cost.workMs = std::max(0.0, (uploadStart - workStart) * 1000.0 - deviceMs);
    m_cost.uploadMs = (uploadEnd - uploadStart) * 1000.0 + deviceMs;
    m_device = m_workspace.projection().deviceFigures();
    m_ctx->gpuMemory = m_device.memory;
    m_ctx->gpuKernel = m_device.kernel;
    fitWhenDue();

    const double drawStart = monotonicSeconds();
    ImGui::Render();
    glViewport(0, 0, fbW, fbH);
    glClearColor(0.06f, 0.065f, 0.075f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    m_painter->draw(m_camera, m_canvas, fbScale, panels);
    m_ctx->pointPainter = m_painter->drawnBy();
    m_ctx->pointDrawerReason = m_painter->drawerReason();
    glViewport(0, 0, fbW, fbH);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    afterDrawing(fbW, fbH);
    // The swap waits for the display while the GPU would idle: the next frame's training step
    // runs on it meanwhile (over every cell on the device only), and is waited for after.
    const bool ahead = m_workspace.training().startStepAhead(m_budgetMs);
    const double swapStart = monotonicSeconds();
    glfwSwapBuffers(m_window);
    const double drawEnd = monotonicSeconds();
    m_workspace.training().finishStepAhead();
    const double aheadEnd = monotonicSeconds();
    m_cost.swapMs = (drawEnd - swapStart) * 1000.0;
    m_cost.drawMs = (drawEnd - drawStart) * 1000.0;
    m_cost.steppedAhead = ahead;
    m_cost.aheadWaitMs = ahead ? (aheadEnd - drawEnd) * 1000.0 : 0.0;
    m_cost.workMs += m_cost.aheadWaitMs;
    m_cost.layerRedrawMs = m_painter->lastRedrawMs();
    m_cost.layerBusy = m_painter->busy();
    m_cost.gpuPartsMs = m_device.partsMs;
    m_cost.gpuProjectDeviceMs = m_device.deviceMs;
    m_cost.splatDeviceMs = m_painter->lastSplatDeviceMs();
    if (m_ctx->quitRequested) m_quit = 0;
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
    m_screenshots.clear();
    if (m_ctx->pngRequest) {
        exportPng(*m_ctx->pngRequest);
        m_ctx->pngRequest = nullptr;
    }
}

}  // namespace sepal::gui
