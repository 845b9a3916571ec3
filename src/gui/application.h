#pragma once
// The desktop application: the window, Dear ImGui, the side bars, the canvas and the frame loop.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/workspace.h"
#include "render/camera.h"
#include "ui/canvas.h"
#include "ui/ui_context.h"

struct GLFWwindow;

namespace sepal::render {
class ScatterRenderer;
class OverlayRenderer;
class PointLayer;
class CudaColours;
}  // namespace sepal::render

namespace sepal::app {
class GpuProjection;
class Autosaver;
class AutosaveFolder;
}  // namespace sepal::app

namespace sepal::ui {
class SideBars;
class ErrorBanner;
class CrashRecovery;
}  // namespace sepal::ui

namespace sepal::gui {

class ScriptPlayer;
class FrameBench;
class GlDevicePositions;

/// Command-line options of `sepal`.
struct Options {
    std::vector<std::string> files;  ///< files to open (demo data when empty)
    std::string script;              ///< --script FILE
    std::string screenshot;          ///< --screenshot PATH (once settled, then quit)
    int benchFrames = 0;             ///< --bench-frames N
    bool benchTrain = false;         ///< --bench-train: the benchmark trains instead of dragging
    int width = 1280, height = 800;  ///< --size WxH, logical pixels
    bool hidden = false;             ///< --hidden: no visible window (benchmarks)
    bool egl = false;                ///< --egl: create the OpenGL context through EGL
    std::string backend = "auto";    ///< --backend NAME
    std::string autosaveDir;         ///< autosave folder ("" = no autosave)
    int landmarks = 0;               ///< --landmarks G for the k-means recipes (0: default)
};

/// Virtual input for one frame (scripts drive the real input path with it).
struct InputFrame {
    float x = 0, y = 0;                    ///< mouse, window pixels
    bool down[3] = {false, false, false};  ///< left, right, middle
    bool ctrl = false, shift = false;      ///< modifiers
    int key = -1;                          ///< key pressed this frame (GLFW code), -1 none
    float wheel = 0;                       ///< wheel steps
};

/// Owns the window and runs the loop until quit; returns the exit status.
class Application {
  public:
    explicit Application(Options options);
    ~Application();
    /// Runs until the window closes or a script quits.
    int run();

    // For the script player.
    /// The model.
    app::Workspace& workspace() { return m_workspace; }
    /// The canvas (landmark positions on screen, selection).
    ui::Canvas& canvas() { return m_canvas; }
    /// The camera.
    render::Camera& camera() { return m_camera; }
    /// The UI context (brush name, lasso tool).
    ui::UiContext& context() { return *m_ctx; }
    /// Saves the window as PNG after this frame is drawn.
    void requestScreenshot(const std::string& path) { m_screenshots.push_back(path); }
    /// Writes a PNG export of the canvas at a size (before the next frame).
    void exportPng(const ui::PngRequest& request);
    /// Opens or closes the side-bar section titled `title` next frame.
    void showPanel(const std::string& title, bool open);
    /// Ends the loop after this frame.
    void quit(int status) { m_quit = status; }
    /// True when nothing is pending: data projected and the points drawn.
    bool idle() const;
    /// The crashed session offered on start (the dialog).
    ui::CrashRecovery& recovery() { return *m_recovery; }
    /// Writes the autosave now, as the half-minute timer would.
    void autosaveNow();

  private:
    void frame();
    void uploadPoints(const app::FrameUpdate& update, bool& redraw);
    void fitWhenDue();
    /// Splats the point layer with CUDA when the GPU projects into the vertex buffers; false
    /// when it cannot (then OpenGL draws it), and for good after a CUDA failure.
    bool paintLayerOnCuda(float pointSize, float alpha, int width, int height);
    /// True while the cells a finished drag moved are still being projected on the CPU (the
    /// layer then waits); restarts a redraw under way once every cell is projected.
    bool catchingUpAfterDrag();
    /// What draws the point layer now: "CUDA", "CPU" or "OpenGL".
    std::string layerPainter() const;
    void afterDrawing(int fbW, int fbH);
    void handleShortcuts();

    Options m_options;
    GLFWwindow* m_window = nullptr;
    app::Workspace m_workspace;
    render::Camera m_camera;
    bool m_smallMultiples = false;  // the canvas showed small multiples last frame
    ui::Canvas m_canvas;
    std::unique_ptr<ui::UiContext> m_ctx;
    std::unique_ptr<render::ScatterRenderer> m_points;
    std::unique_ptr<render::OverlayRenderer> m_overlay;
    std::unique_ptr<render::PointLayer> m_layer;
    /// Milliseconds of point drawing into the cached layer per frame (by the OpenGL renderer).
    double m_layerBudgetMs = 12.0;
    bool m_cpuSplats = false;   // the point layer is splatted on the CPU (software OpenGL)
    bool m_cudaSplats = false;  // the point layer is splatted by CUDA (GPU projection)
    std::unique_ptr<render::CudaColours> m_deviceColours;  // what the CUDA splats read
    bool m_deviceColoursStale = true;                      // the colours changed since copied
    std::unique_ptr<GlDevicePositions> m_devicePositions;
    std::unique_ptr<app::GpuProjection> m_gpu;  // null on the CPU path
    std::array<float, 5> m_lastLook{};
    std::unique_ptr<ui::SideBars> m_bars;
    std::unique_ptr<ui::ErrorBanner> m_banner;
    std::unique_ptr<ScriptPlayer> m_script;
    std::unique_ptr<FrameBench> m_bench;
    std::vector<std::string> m_screenshots;
    std::optional<int> m_quit;
    float m_contentScale = 1;
    uint64_t m_fitForData = 0, m_fitAfterSweeps = 0;
    bool m_fitted = false;
    std::unique_ptr<app::AutosaveFolder> m_autosaveFolder;
    std::unique_ptr<app::Autosaver> m_autosave;
    std::unique_ptr<ui::CrashRecovery> m_recovery;
    double m_budgetMs = 8, m_lastWorkMs = 0, m_lastDrawMs = 0;
    double m_lastUiMs = 0, m_lastUploadMs = 0;  // the panels; the GPU leg and buffer uploads
    bool m_quitAfterScreenshot = false;
    int m_settleFrames = 0;
    double m_screenshotWaitStart = 0;  // when --screenshot began waiting (seconds)
    double m_dragEndedAt = 0;          // when the last landmark drag ended (seconds)
    bool m_wasDragging = false, m_wasIdle = false;
    std::vector<std::string> m_dropped;

    friend void dropCallback(GLFWwindow*, int, const char**);
};

}  // namespace sepal::gui
