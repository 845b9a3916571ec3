#pragma once
// The desktop application's frame loop: the window, Dear ImGui, the side bars and the canvas,
// one frame after another. What runs beside the loop (a script, --screenshot, --bench-frames,
// the autosave) is a FrameHook; what draws the cells is the CanvasPainter.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/workspace.h"
#include "gui/frame_bench.h"
#include "gui/frame_hook.h"
#include "render/camera.h"
#include "ui/canvas.h"
#include "ui/ui_context.h"

struct GLFWwindow;

namespace sepal::ui {
class SideBars;
class ErrorBanner;
class CrashRecovery;
}  // namespace sepal::ui

namespace sepal::gui {

class Autosaving;
class CanvasPainter;

/// Command-line options of `sepal`.
struct Options {
    std::vector<std::string> files;  ///< files to open (demo data when empty)
    std::string script;              ///< --script FILE
    std::string screenshot;          ///< --screenshot PATH (once settled, then quit)
    int benchFrames = 0;             ///< --bench-frames N
    bool benchTrain = false;         ///< --bench-train: the benchmark trains instead of dragging
    std::string benchTrainer;        ///< --bench-train T: its trainer ("": the Training window's)
    int width = 1280, height = 800;  ///< --size WxH, logical pixels
    bool hidden = false;             ///< --hidden: no visible window (benchmarks)
    bool egl = false;                ///< --egl: create the OpenGL context through EGL
    std::string backend = "auto";    ///< --backend NAME
    std::string points;              ///< --points NAME: the point drawer ("" = the best)
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
    /// Runs until the window closes or a hook quits.
    int run();

    // For the hooks.
    /// The model.
    app::Workspace& workspace() { return m_workspace; }
    /// The canvas (landmark positions on screen, selection).
    ui::Canvas& canvas() { return m_canvas; }
    /// The camera.
    render::Camera& camera() { return m_camera; }
    /// The UI context (brush name, lasso tool).
    ui::UiContext& context() { return *m_ctx; }
    /// Saves the window as PNG after the next frame is drawn.
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
    ui::CrashRecovery& recovery();
    /// Writes the autosave now, as the half-minute timer would.
    void autosaveNow();
    /// What the last frame cost (--bench-frames).
    const FrameCost& frameCost() const { return m_cost; }
    /// How the frames are drawn (--bench-frames).
    FrameBenchContext drawingContext() const;

  private:
    void frame();
    /// Fits the view once per opened dataset and trained or opened model.
    void fitWhenDue();
    /// Screenshots and PNG exports asked for during the frame, before the buffers swap.
    void afterDrawing(int fbW, int fbH);
    void handleShortcuts();
    /// Adapts the work budget to what the rest of the frame took.
    void timeFrame(double ms);

    Options m_options;
    GLFWwindow* m_window = nullptr;
    app::Workspace m_workspace;
    render::Camera m_camera;
    ui::Canvas m_canvas;
    std::unique_ptr<ui::UiContext> m_ctx;
    std::unique_ptr<CanvasPainter> m_painter;
    std::unique_ptr<ui::SideBars> m_bars;
    std::unique_ptr<ui::ErrorBanner> m_banner;
    std::vector<std::unique_ptr<FrameHook>> m_hooks;  // the autosave first
    Autosaving* m_autosaving = nullptr;               // m_hooks' first
    std::vector<std::string> m_screenshots;
    std::optional<int> m_quit;
    float m_contentScale = 1;
    uint64_t m_fitForData = 0, m_fitAfterSweeps = 0;
    bool m_fitted = false;
    std::array<float, 2> m_keySize{0, 0};  // the colour key's size as last seen
    std::string m_fitTitle;                // the colour key's title when the view was last fitted
    double m_budgetMs = 8;
    FrameCost m_cost;
    app::DeviceFigures m_device;  // the projection's on the device, this frame
    std::vector<std::string> m_dropped;

    friend void dropCallback(GLFWwindow*, int, const char**);
};

}  // namespace sepal::gui
