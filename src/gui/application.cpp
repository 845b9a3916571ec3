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
#include <numeric>
#include <stdexcept>

#include "core/color/colormap.h"
#include "core/raster/annotate.h"
#include "core/raster/png.h"
#include "core/raster/text.h"
#include "gui/script_player.h"
#include "render/capture.h"
#include "render/cuda_interop.h"
#include "render/overlay_renderer.h"
#include "render/point_layer.h"
#include "render/scatter_renderer.h"
#include "ui/colour_panel.h"
#include "ui/data_panel.h"
#include "ui/export_panel.h"
#include "ui/landmarks_panel.h"
#include "ui/log_panel.h"
#include "ui/open_panel.h"
#include "ui/populations_panel.h"
#include "ui/scene.h"
#include "ui/stats_panel.h"
#include "ui/training_panel.h"

#if defined(SEPAL_HAVE_CUDA) && __has_include("cuda/cuda_projector.h")
#include "cuda/cuda_projector.h"
#define SEPAL_GUI_CUDA_INTEROP 1
#endif

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
constexpr double kAutosaveSeconds = 30.0;
constexpr float kLeftWidth = 330, kRightWidth = 300;

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
    initWindow();
    initImGui();
    m_points = std::make_unique<render::ScatterRenderer>();
    m_overlay = std::make_unique<render::OverlayRenderer>();
    m_layer = std::make_unique<render::PointLayer>();
    m_layerBudgetMs = hardwareOpenGl() ? kHardwareLayerBudgetMs : kSoftwareLayerBudgetMs;
    initGpu();
    m_left.push_back(std::make_unique<ui::OpenPanel>());
    m_left.push_back(std::make_unique<ui::DataPanel>());
    m_left.push_back(std::make_unique<ui::TrainingPanel>());
    m_left.push_back(std::make_unique<ui::LandmarksPanel>(m_canvas.selection()));
    m_left.push_back(std::make_unique<ui::ColourPanel>());
    m_right.push_back(std::make_unique<ui::PopulationsPanel>());
    m_right.push_back(std::make_unique<ui::ExportPanel>());
    m_right.push_back(std::make_unique<ui::StatsPanel>());
    m_right.push_back(std::make_unique<ui::LogPanel>());
    m_ctx->gpuMemory = m_gpu ? render::CudaGlBuffer::memoryLine() : "n/a (CPU path)";
    if (!m_options.script.empty())
        m_script = std::make_unique<ScriptPlayer>(*this, readScript(m_options.script));
    if (!m_options.files.empty()) m_workspace.openFiles(m_options.files);
}

Application::~Application() {
    m_script.reset();
    m_interop.reset();
    m_layer.reset();
    m_points.reset();
    m_overlay.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    if (m_window) glfwDestroyWindow(m_window);
    glfwTerminate();
}

void Application::initWindow() {
    glfwSetErrorCallback(
        [](int code, const char* text) { std::fprintf(stderr, "glfw: %s (%d)\n", text, code); });
    if (!glfwInit())
        throw std::runtime_error(
            "cannot open a window: no display (set DISPLAY, or run under xvfb-run)");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    if (m_options.hidden) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    // EGL contexts reach the NVIDIA driver on machines whose X server (Xvfb) has no NVIDIA GLX.
    if (m_options.egl) glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
    m_window = glfwCreateWindow(m_options.width, m_options.height, "Sepal", nullptr, nullptr);
    if (!m_window)
        throw std::runtime_error(
            "cannot create an OpenGL 3.3 core window; check the graphics driver");
    glfwMakeContextCurrent(m_window);
    // Benchmarks measure the frame's work, not the display's refresh.
    glfwSwapInterval(m_options.benchFrames > 0 ? 0 : 1);
    glfwSetWindowUserPointer(m_window, this);
    glfwSetDropCallback(m_window, dropCallback);
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(m_window, &sx, &sy);
    m_contentScale = std::clamp(std::max(sx, sy), 1.0f, 4.0f);
}

void Application::initImGui() {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is fixed; nothing to remember between runs
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 0;
    style.FrameRounding = 3;
    style.GrabRounding = 3;
    style.WindowBorderSize = 0;
    style.ItemSpacing = ImVec2(8, 5);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
    style.Colors[ImGuiCol_PlotHistogram] = ImVec4(0.26f, 0.59f, 0.98f, 0.8f);
    style.ScaleAllSizes(m_contentScale);
    const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
    if (std::filesystem::exists(font))
        io.Fonts->AddFontFromFileTTF(font, 15.0f * m_contentScale);
    else
        io.FontGlobalScale = m_contentScale;
    ImGui_ImplGlfw_InitForOpenGL(m_window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
}

void Application::injectInput(const InputFrame& in) {
    ImGuiIO& io = ImGui::GetIO();
    // Scripted input owns keyboard and mouse: another window on the same X server taking the
    // focus must not release the keys of this frame (Dear ImGui clears them on focus loss).
    io.AppFocusLost = false;
    io.MousePos = ImVec2(in.x, in.y);
    for (int b = 0; b < 3; ++b) io.MouseDown[b] = in.down[b];
    io.KeyCtrl = in.ctrl;
    io.KeyShift = in.shift;
    io.MouseWheel = in.wheel;
    for (int k : {GLFW_KEY_Z, GLFW_KEY_Y, GLFW_KEY_DELETE, GLFW_KEY_F, GLFW_KEY_ESCAPE,
                  GLFW_KEY_LEFT, GLFW_KEY_RIGHT, GLFW_KEY_UP, GLFW_KEY_DOWN, GLFW_KEY_HOME})
        io.KeysDown[k] = (k == in.key);
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
        if (m_options.benchFrames > 0) benchFrame(ms);
    }
    autosave(true);
    return m_quit.value_or(0);
}

bool Application::idle() const {
    return m_workspace.idle() && !m_layer->busy() && !(m_gpu && m_gpuHostStale);
}

void Application::initGpu() {
#ifdef SEPAL_GUI_CUDA_INTEROP
    if (!dynamic_cast<cuda::CudaProjector*>(m_workspace.backend().projector.get())) return;
    m_interop = std::make_unique<render::CudaGlBuffer>();
    m_gpu = true;
    m_workspace.useExternalProjection(true);
    m_workspace.setBackendNote(m_workspace.backend().reason +
                               "; projecting straight into the OpenGL vertex buffer");
#endif
}

bool Application::gpuFrame() {
#ifdef SEPAL_GUI_CUDA_INTEROP
    // The whole dataset is re-projected on the device whenever the model or the parameters
    // change, written into the vertex buffer; a host copy follows once the model rests (for
    // hovering, brushing, density and exports).
    auto* projector = dynamic_cast<cuda::CudaProjector*>(m_workspace.backend().projector.get());
    const auto& st = m_workspace.state();
    size_t n = st.data.events();
    if (!projector || n == 0 || st.model.count() < 2) return false;
    try {
        if (st.version(app::Part::Data) != m_gpuData || !m_gpuAttached) {
            projector->setPoints(st.data.points.data(), n, st.data.points.cols);
            if (!m_interopBroken) {
                try {
                    m_interop->attach(m_points->positionBuffer(), n * 2 * sizeof(float));
                } catch (const std::exception& e) {
                    m_interopBroken = true;
                    m_workspace.log(app::LogEntry::Warning,
                                    std::string("no CUDA-OpenGL interop (") + e.what() +
                                        "); the GPU projects through host memory");
                }
            }
            m_gpuAttached = true;
            m_gpuData = st.version(app::Part::Data);
            m_gpuModel = {~0ull, ~0ull};
        }
        std::array<uint64_t, 2> model = {st.model.highVersion, st.model.lowVersion};
        if (model != m_gpuModel) {
            m_gpuModel = model;
            double t0 = now();
            if (!m_interopBroken) {
                try {
                    float* device = m_interop->map();
                    projector->projectToDevice(st.model, st.embed, device);
                    m_interop->unmap();
                    m_gpuHostStale = true;
                    m_gpuQuiet = 0;
                } catch (const std::exception& e) {
                    // OpenGL not on the NVIDIA driver (Mesa under Xvfb): no interop, but the
                    // GPU still projects, through host memory.
                    m_interop->unmap();
                    m_interopBroken = true;
                    m_workspace.log(app::LogEntry::Warning,
                                    std::string("no CUDA-OpenGL interop (") + e.what() +
                                        "); the GPU projects through host memory");
                }
            }
            if (m_interopBroken) {
                std::vector<float> xy(2 * n);
                projector->projectToHost(st.model, st.embed, xy.data());
                m_points->uploadPositions(0, n, xy.data());
                m_workspace.acceptPositions(xy.data());
                m_gpuHostStale = false;
            }
            m_workspace.setExternalProjectMs((now() - t0) * 1000.0);
            m_gpuProjected += n;
            m_ctx->gpuMemory = render::CudaGlBuffer::memoryLine();
            m_ctx->gpuKernel = projector->lastKernel();  // what "auto" chose for this shape
            return true;
        }
        if (m_gpuHostStale && ++m_gpuQuiet > 3) {
            std::vector<float> xy(2 * n);
            projector->projectToHost(st.model, st.embed, xy.data());
            m_workspace.acceptPositions(xy.data());
            m_gpuHostStale = false;
        }
    } catch (const std::exception& e) {
        m_interop->unmap();
        m_ctx->error(std::string("GPU projection failed, continuing on the CPU: ") + e.what());
        m_ctx->gpuKernel.clear();
        m_gpu = false;
        m_workspace.useExternalProjection(false);
    }
#endif
    return false;
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

void Application::frame() {
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

    drawMenu();
    float top = ImGui::GetFrameHeight();
    float left = kLeftWidth * m_contentScale, right = kRightWidth * m_contentScale;
    drawSideBars(top);
    m_canvas.setArea(left, top, float(winW) - left - right, float(winH) - top);
    m_camera.setViewport(float(winW) - left - right, float(winH) - top);
    handleShortcuts();
    m_canvas.update(*m_ctx);
    drawColourKey();
    drawErrorBanner();

    double workStart = now();
    auto update = m_workspace.frame(m_budgetMs);
    m_lastWorkMs = (now() - workStart) * 1000.0;
    const auto& xy = m_workspace.positions();
    size_t n = xy.size() / 2;
    bool redraw = !update.positions.empty() || update.colours;
    if (update.allPositions || m_points->size() != n) {
        if (m_interop) m_interop->detach(), m_gpuAttached = false;
        m_points->resize(n);
        m_points->uploadPositions(0, n, xy.data());
        update.colours = true;
        redraw = true;
    } else {
        for (const auto& r : update.positions)
            m_points->uploadPositions(r.first, r.count, xy.data() + 2 * r.first);
    }
    if (update.colours && m_workspace.colours().size() == 4 * n)
        m_points->uploadColours(0, n, m_workspace.colours().data());
    if (m_gpu && gpuFrame()) redraw = true;

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
    if (redraw || look != m_lastLook) m_layer->invalidate();
    m_lastLook = look;
    m_layer->advance(*m_points, m_camera, view.pointSize * fbScale, view.alpha, vw, vh,
                     m_layerBudgetMs);
    glViewport(vx, 0, vw, vh);
    ui::drawScene(m_workspace, m_camera, fbScale, *m_points, *m_overlay,
                  {&m_canvas.selection(), m_canvas.hoveredLandmark(), m_layer.get()});
    glViewport(0, 0, fbW, fbH);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

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
    glfwSwapBuffers(m_window);
    m_lastDrawMs = (now() - drawStart) * 1000.0;

    if (m_ctx->quitRequested) m_quit = 0;
    if (m_script) m_script->afterFrame();
    if (!m_options.screenshot.empty() && !m_script) {
        // --screenshot: wait until the data is open and projected, then capture and leave.
        // A file that failed to open is ready too: the picture then shows the error.
        bool ready = idle() && (m_workspace.state().data.events() > 0 || m_options.files.empty() ||
                                m_workspace.errorCount() > 0);
        if ((ready && ++m_settleFrames > 3) || ++m_settleFrames > 3000) {
            requestScreenshot(m_options.screenshot);
            m_options.screenshot.clear();
            m_quitAfterScreenshot = true;
        }
    }
    autosave(false);
}

void Application::drawMenu() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open demo data")) {
            const char* env = std::getenv("SEPAL_DATA_DIR");
            m_workspace.openFiles(
                {(std::filesystem::path(env ? env : SEPAL_DATA_DIR_DEFAULT) / "demo.fcs")
                     .string()});
        }
        if (ImGui::MenuItem("Generated data (100k cells)"))
            m_workspace.openFiles({"synthetic:100000"});
        if (!m_options.autosave.empty() && ImGui::MenuItem("Restore autosave")) {
            try {
                m_camera.setState(m_workspace.loadSession(m_options.autosave));
            } catch (const std::exception& e) {
                m_ctx->error(e.what());
            }
        }
        if (!m_ctx->sessionPath.empty() && ImGui::MenuItem("Save session")) {
            try {
                m_workspace.saveSession(m_ctx->sessionPath, m_camera.state());
            } catch (const std::exception& e) {
                m_ctx->error(e.what());
            }
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) m_ctx->quitRequested = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
        auto undo = m_workspace.undoStack().undoLabel(), redo = m_workspace.undoStack().redoLabel();
        if (ImGui::MenuItem(("Undo " + undo).c_str(), "Ctrl+Z", false, !undo.empty()))
            m_workspace.undo();
        if (ImGui::MenuItem(("Redo " + redo).c_str(), "Ctrl+Shift+Z", false, !redo.empty()))
            m_workspace.redo();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Fit to view", "F")) m_ctx->fitRequested = true;
        ImGui::EndMenu();
    }
    const auto& st = m_workspace.state();
    ImGui::SameLine(ImGui::GetWindowWidth() - 520 * m_contentScale);
    ImGui::TextDisabled("%zu cells  %zu landmarks  %s  %.0f fps", st.data.events(),
                        st.model.count(), m_workspace.backend().name.c_str(), m_ctx->fps);
    ImGui::EndMainMenuBar();
}

void Application::drawSideBars(float top) {
    ImGuiViewport* vp = ImGui::GetMainViewport();
    float left = kLeftWidth * m_contentScale, right = kRightWidth * m_contentScale;
    float height = vp->Size.y - top;
    ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                             ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoTitleBar |
                             ImGuiWindowFlags_NoBringToFrontOnFocus;
    auto bar = [&](const char* name, float x, float w, auto& panels) {
        ImGui::SetNextWindowPos(ImVec2(x, top));
        ImGui::SetNextWindowSize(ImVec2(w, height));
        ImGui::Begin(name, nullptr, flags);
        for (auto& p : panels) {
            ImGui::SetNextItemOpen(p->openByDefault(), ImGuiCond_Once);
            if (auto it = m_panelRequests.find(p->title()); it != m_panelRequests.end()) {
                ImGui::SetNextItemOpen(it->second, ImGuiCond_Always);
                m_panelRequests.erase(it);
            }
            if (ImGui::CollapsingHeader(p->title())) {
                ImGui::PushID(p->title());
                ImGui::Indent(4);
                p->draw(*m_ctx);
                ImGui::Unindent(4);
                ImGui::PopID();
                ImGui::Spacing();
            }
        }
        ImGui::End();
    };
    bar("##left", 0, left, m_left);
    bar("##right", vp->Size.x - right, right, m_right);
}

void Application::drawColourKey() {
    const auto& key = m_workspace.colourKey();
    auto* dl = ImGui::GetBackgroundDrawList();
    auto o = m_canvas.origin();
    float x1 = o[0] + m_camera.width() - 16, y1 = o[1] + m_camera.height() - 16;
    float line = ImGui::GetTextLineHeight();
    // What the key covers, from the canvas's lower right corner, with a gap for the picture.
    auto reserve = [&](float left, float top) {
        m_ctx->keySize = {o[0] + m_camera.width() - left + 8, o[1] + m_camera.height() - top + 8};
    };
    m_ctx->keySize = {0, 0};
    if (key.continuous) {
        float w = 220 * m_contentScale, h = 12 * m_contentScale;
        float x0 = x1 - w, y0 = y1 - h - line - 4;
        dl->AddRectFilled(ImVec2(x0 - 8, y0 - line - 10), ImVec2(x1 + 8, y1 + 8),
                          IM_COL32(15, 16, 20, 200), 4);
        reserve(x0 - 8, y0 - line - 10);
        dl->AddText(ImVec2(x0, y0 - line - 4), IM_COL32(230, 230, 230, 255), key.title.c_str());
        for (int i = 0; i < 64; ++i) {
            auto c = app::colourMap(key.map, float(i) / 63.0f);
            dl->AddRectFilled(ImVec2(x0 + w * float(i) / 64, y0),
                              ImVec2(x0 + w * float(i + 1) / 64 + 1, y0 + h),
                              IM_COL32(c[0], c[1], c[2], 255));
        }
        char lo[32], hi[32];
        std::snprintf(lo, sizeof lo, "%.3g", key.low);
        std::snprintf(hi, sizeof hi, "%.3g", key.high);
        dl->AddText(ImVec2(x0, y0 + h + 2), IM_COL32(200, 200, 200, 255), lo);
        dl->AddText(ImVec2(x1 - ImGui::CalcTextSize(hi).x, y0 + h + 2),
                    IM_COL32(200, 200, 200, 255), hi);
    } else if (!key.legend.empty()) {
        size_t shown = std::min<size_t>(key.legend.size(), 16);
        float w = 0;
        for (size_t i = 0; i < shown; ++i)
            w = std::max(w, ImGui::CalcTextSize(key.legend[i].name.c_str()).x);
        w += line + 12;
        float h = float(shown + 1) * (line + 3);
        float x0 = x1 - w, y0 = y1 - h;
        dl->AddRectFilled(ImVec2(x0 - 8, y0 - 8), ImVec2(x1 + 8, y1 + 8), IM_COL32(15, 16, 20, 200),
                          4);
        reserve(x0 - 8, y0 - 8);
        dl->AddText(ImVec2(x0, y0), IM_COL32(230, 230, 230, 255), key.title.c_str());
        for (size_t i = 0; i < shown; ++i) {
            float y = y0 + float(i + 1) * (line + 3);
            auto c = key.legend[i].colour;
            dl->AddCircleFilled(ImVec2(x0 + line * 0.5f, y + line * 0.5f), line * 0.35f,
                                IM_COL32(c[0], c[1], c[2], 255));
            dl->AddText(ImVec2(x0 + line + 6, y), IM_COL32(220, 220, 220, 255),
                        key.legend[i].name.c_str());
        }
    }
}

void Application::drawErrorBanner() {
    const auto& log = m_workspace.log();
    if (m_workspace.errorCount() != m_errorsSeen) {
        m_errorsSeen = m_workspace.errorCount();
        for (auto it = log.rbegin(); it != log.rend(); ++it)
            if (it->level == app::LogEntry::Error) {
                m_banner = it->text;
                break;
            }
        m_bannerUntil = m_workspace.seconds() + 10.0;
    }
    if (m_banner.empty() || m_workspace.seconds() > m_bannerUntil) return;
    auto o = m_canvas.origin();
    ImGui::SetNextWindowPos(ImVec2(o[0] + 12, o[1] + 12));
    ImGui::SetNextWindowSize(ImVec2(m_camera.width() - 24, 0));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.55f, 0.12f, 0.12f, 0.95f));
    ImGui::Begin("##error", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::TextWrapped("Error: %s", m_banner.c_str());
    if (ImGui::SmallButton("Dismiss")) m_banner.clear();
    ImGui::End();
    ImGui::PopStyleColor();
}

namespace {
/// The colour key of an exported picture, laid out in its lower right corner as the canvas
/// shows it: the box (x, y, width, height; empty when there is no key) and what is drawn there.
struct PictureKey {
    int x = 0, y = 0, width = 0, height = 0;
    int scale = 1;      // text scale, with the picture's height
    int barHeight = 0;  // colour bar
    int maxHeight = 0;  // legend
    std::vector<std::pair<std::string, color::Rgba8>> entries;
};

PictureKey layoutPictureKey(const app::ColourKey& key, int width, int height) {
    PictureKey k;
    k.scale = raster::textScaleFor(height);
    const int margin = 16 * k.scale;
    if (key.continuous) {
        k.width = 16 * k.scale + 8 * k.scale +
                  std::max({raster::textWidth(raster::formatTick(key.high), k.scale),
                            raster::textWidth(raster::formatTick(key.low), k.scale)});
        k.width = std::max(k.width, raster::textWidth(key.title, k.scale));
        k.barHeight = height / 4;
        k.height = raster::colorBarHeight(k.barHeight, k.scale);
    } else if (!key.legend.empty()) {
        k.width = raster::textWidth(key.title, k.scale);
        for (const auto& e : key.legend) {
            k.entries.push_back({e.name, {e.colour[0], e.colour[1], e.colour[2], 255}});
            k.width = std::max(k.width, raster::textWidth(e.name, k.scale) + 16 * k.scale);
        }
        k.maxHeight = height - 2 * margin;
        k.height = raster::legendHeight(k.entries.size(), k.maxHeight, k.scale);
    } else {
        return k;
    }
    k.x = width - k.width - margin;
    k.y = height - k.height - margin;
    return k;
}
}  // namespace

void Application::annotate(raster::Image& picture) const {
    const auto& key = m_workspace.colourKey();
    const PictureKey k = layoutPictureKey(key, picture.width, picture.height);
    const color::Rgba8 text{230, 230, 230, 255};
    if (key.continuous)
        raster::drawColorBar(picture, k.x, k.y, 16 * k.scale, k.barHeight,
                             color::colormapByName(key.map).value_or(color::Colormap::Viridis),
                             {key.low, key.high}, key.title, text, k.scale);
    else if (!k.entries.empty())
        raster::drawLegend(picture, k.x, k.y, k.maxHeight, k.entries, key.title, text, k.scale);
}

void Application::exportPng(const ui::PngRequest& request) {
    try {
        render::OffscreenTarget target(request.width, request.height);
        target.bind();
        glClearColor(0.06f, 0.065f, 0.075f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        // Same view as the canvas, scaled so the canvas's content fills the image.
        render::Camera cam = m_camera;
        float scale = std::min(float(request.width) / m_camera.width(),
                               float(request.height) / m_camera.height());
        auto s = m_camera.state();
        cam.setViewport(float(request.width) / scale, float(request.height) / scale);
        cam.setState(s);
        // A view the user has not panned or zoomed since it was fitted is fitted again for the
        // image's shape, clear of the image's own key.
        if (m_canvas.showsFit(m_camera)) {
            PictureKey k = request.key ? layoutPictureKey(m_workspace.colourKey(), request.width,
                                                          request.height)
                                       : PictureKey{};
            float gap = k.width > 0 ? 8.0f : 0.0f;
            cam.fitClearOfCorner(m_canvas.pictureBounds(*m_ctx),
                                 k.width > 0 ? float(request.width - k.x) / scale + gap : 0.0f,
                                 k.height > 0 ? float(request.height - k.y) / scale + gap : 0.0f);
        }
        ui::SceneMarks marks;
        marks.landmarks = request.landmarks;
        marks.graph = request.graph;
        ui::drawScene(m_workspace, cam, scale, *m_points, *m_overlay, marks);
        auto image = target.read();
        render::OffscreenTarget::unbind();
        raster::Image picture;
        picture.width = image.width;
        picture.height = image.height;
        picture.pixels = std::move(image.rgba);
        if (request.key) annotate(picture);
        raster::writePng(request.path, picture);
        m_workspace.log(app::LogEntry::Info, "PNG written: " + request.path);
    } catch (const std::exception& e) {
        render::OffscreenTarget::unbind();
        m_ctx->error(std::string("PNG export failed: ") + e.what());
    }
}

void Application::autosave(bool force) {
    if (m_options.autosave.empty() || m_workspace.state().data.events() == 0) return;
    double t = m_workspace.seconds();
    if (!force && t - m_lastAutosave < kAutosaveSeconds) return;
    m_lastAutosave = t;
    if (m_workspace.state().counter == m_autosavedCounter && !force) return;
    m_autosavedCounter = m_workspace.state().counter;
    try {
        m_workspace.saveSession(m_options.autosave, m_camera.state());
    } catch (const std::exception& e) {
        m_workspace.log(app::LogEntry::Warning, std::string("autosave failed: ") + e.what());
    }
}

std::string Application::stateJson() {
    const auto& st = m_workspace.state();
    nlohmann::json pops = nlohmann::json::array();
    auto sizes = m_workspace.populationSizes();
    for (size_t i = 0; i < st.populations.groups.size(); ++i)
        pops.push_back({{"name", st.populations.groups[i].name}, {"size", sizes[i]}});
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : st.data.samples) samples.push_back(s.path);
    const char* modes[] = {"marker", "sample", "label", "density", "population"};
    nlohmann::json j = {{"events", st.data.events()},
                        {"samples", samples},
                        {"columns", st.data.columns},
                        {"landmarks", st.model.count()},
                        {"locked", st.model.count() - size_t(std::count(st.model.locked.begin(),
                                                                        st.model.locked.end(), 0))},
                        {"populations", pops},
                        {"colour_mode", modes[int(st.colour.mode)]},
                        {"errors", m_workspace.errorCount()},
                        {"undo", m_workspace.undoStack().undoLabel()},
                        {"redo", m_workspace.undoStack().redoLabel()},
                        {"sweeps", m_workspace.stats().sweeps},
                        {"backend", m_workspace.backend().name}};
    // Window pixels of the canvas and of each landmark, so tests can look at the screenshot.
    auto o = m_canvas.origin();
    j["canvas"] = {o[0], o[1], m_camera.width(), m_camera.height()};
    nlohmann::json marks = nlohmann::json::array();
    for (size_t l = 0; l < st.model.count(); ++l) {
        auto p = m_camera.toScreen(st.model.low[2 * l], st.model.low[2 * l + 1]);
        marks.push_back({o[0] + p[0], o[1] + p[1]});
    }
    j["landmark_screen"] = marks;
    // The corner the colour key takes, in window pixels (empty when none is drawn).
    nlohmann::json keyBox = nlohmann::json::array();
    float right = o[0] + m_camera.width(), bottom = o[1] + m_camera.height();
    if (m_ctx->keySize[0] > 0)
        keyBox = {right - m_ctx->keySize[0], bottom - m_ctx->keySize[1], right, bottom};
    j["colour_key"] = keyBox;
    j["colour_title"] = m_workspace.colourKey().title;
    return j.dump();
}

void Application::benchFrame(double frameMs) {
    // Frames while a landmark is being dragged in a circle: the model changes every frame, as
    // in use, so the sweeper never rests. The first frames (opening, first sweep) are skipped.
    auto& st = m_workspace.state();
    if (st.data.events() == 0 || m_workspace.loading()) return;
    if (m_benchStart == 0) {
        m_benchStart = now();
        m_benchProjectedStart = m_workspace.stats().projected;
        m_benchGpuStart = m_gpuProjected;
        m_benchCentre = {st.model.low[0], st.model.low[1]};
        m_workspace.beginLandmarkDrag();
        return;
    }
    m_benchTimes.push_back(frameMs);
    m_benchWorkMs += m_lastWorkMs;
    m_benchDrawMs += m_lastDrawMs;
    if (m_layer->lastRedrawMs() > 0) m_benchLayerMs = m_layer->lastRedrawMs();
    float a = float(m_benchTimes.size()) * 0.05f;
    float r = 0.05f;
    m_workspace.dragLandmarks(
        {0}, {m_benchCentre[0] + r * std::cos(a), m_benchCentre[1] + r * std::sin(a)});
    if (int(m_benchTimes.size()) < m_options.benchFrames) return;
    m_workspace.endLandmarkDrag("bench");
    double seconds = now() - m_benchStart;
    auto times = m_benchTimes;
    std::sort(times.begin(), times.end());
    double mean = std::accumulate(times.begin(), times.end(), 0.0) / double(times.size());
    double median = times[times.size() / 2];
    double p95 = times[std::min(times.size() - 1, size_t(double(times.size()) * 0.95))];
    double projected = double(m_workspace.stats().projected - m_benchProjectedStart);
    if (m_gpu) projected = double(m_gpuProjected - m_benchGpuStart);
    double n = double(st.data.events());
    nlohmann::json j = {{"bench", "gui_frames"},
                        {"frames", times.size()},
                        {"mean_ms", mean},
                        {"median_ms", median},
                        {"p95_ms", p95},
                        {"fps", 1000.0 / mean},
                        {"points", st.data.events()},
                        {"landmarks", st.model.count()},
                        {"dims", st.data.points.cols},
                        {"backend", m_workspace.backend().name},
                        {"projected_per_s", projected / seconds},
                        {"full_sweep_s", projected > 0 ? n / (projected / seconds) : -1.0},
                        {"sweep_work_ms", m_workspace.stats().fullSweepMs},
                        {"work_ms", m_benchWorkMs / double(times.size())},
                        {"draw_ms", m_benchDrawMs / double(times.size())},
                        {"point_redraw_ms", m_benchLayerMs},
                        {"layer_budget_ms", m_layerBudgetMs}};
    // Which OpenGL implementation drew the frames (NVIDIA, or Mesa's llvmpipe under Xvfb).
    j["gl_renderer"] = glString(GL_RENDERER);
    j["gl_vendor"] = glString(GL_VENDOR);
    j["gl_version"] = glString(GL_VERSION);
    j["gl_context"] = m_options.egl ? "egl" : "glx";
    j["cuda_gl_interop"] = m_gpu && !m_interopBroken;
    j["backend_reason"] = m_workspace.backend().reason;
    j["cuda_kernel"] = m_ctx->gpuKernel;  // empty on the CPU path
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    m_quit = 0;
}

}  // namespace sepal::gui
