#pragma once
// What every window gets each frame: the workspace, the camera, and requests to the main loop.

#include <array>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "app/workspace.h"
#include "render/camera.h"

namespace sepal::ui {

/// A PNG export the main loop performs after drawing (it needs the GL context).
struct PngRequest {
    std::string path;        ///< where to write
    int width = 1600;        ///< pixels
    int height = 1200;       ///< pixels
    bool key = true;         ///< draw the colour bar or legend
    bool landmarks = false;  ///< draw the landmarks over the cells (off: a picture of the cells)
    bool graph = false;      ///< draw the landmark graph (with the landmarks)
    bool light = false;      ///< a white background (for print) instead of the canvas's dark one
};

/// The kinds of gate a biaxial plot draws with the mouse.
enum class GateTool { Rectangle, Polygon, Ellipse, Quadrant, Range };

/// What one biaxial plot shows and how it draws gates: its controls (scripts set the first's).
struct BiaxialSettings {
    std::string x, y;           ///< channels (names or markers); empty: chosen from the data
    GateScale xScale, yScale;   ///< the axes' scales (set with the channel unless chosen)
    bool scalesChosen = false;  ///< the user chose the scales: a new channel keeps them
    std::string parent;         ///< the population whose cells it shows ("" every cell)
    bool byPopulation = false;  ///< colour cells by population instead of density
    GateTool tool = GateTool::Rectangle;  ///< what a drag or click on the plot draws
    std::string gateName = "live";        ///< the name the next gate gets
    bool fillCanvas = false;              ///< the plot's window covers the canvas
    bool open = true;                     ///< its window is shown
};

/// Where the Biaxial window drew its plot this frame, in window pixels, and the values at its
/// edges (the state JSON gives them to tests that draw gates with the mouse).
struct PlotFrame {
    bool shown = false;                          ///< drawn this frame
    float x = 0, y = 0, width = 0, height = 0;   ///< the plot's box
    std::array<float, 2> low{0, 0}, high{1, 1};  ///< x and y at the left/bottom and right/top
};

/// Shared by the windows and the canvas during one frame.
struct UiContext {
    app::Workspace& workspace;               ///< the model
    render::Camera& camera;                  ///< the canvas view
    std::string brushName = "population 1";  ///< the population the lasso fills (brushTarget)
    bool brushChosen = false;    ///< the user named or chose brushName (else a fresh name)
    bool lassoTool = false;      ///< left drag draws a lasso instead of panning
    bool heatmapWindow = false;  ///< the heatmap also in a large window of its own
    /// When set, the next lasso splits this population: only its cells move to brushName.
    std::string splitFrom;
    bool fitRequested = false;  ///< fit the view to the points next frame
    /// A loaded session's view, put back in place of the fits its data would get
    /// (Application::fitWhenDue).
    std::optional<std::array<float, 3>> sessionView;
    /// Width and height of the colour key in the canvas's lower right corner, in logical
    /// pixels with its margin (zero when none is drawn): fitting keeps the picture clear of it.
    std::array<float, 2> keySize{0, 0};
    PngRequest* pngRequest = nullptr;  ///< set by the Export window, consumed by the main loop
    PngRequest pendingPng;             ///< storage for pngRequest
    double frameMs = 0;                ///< last frame's duration
    double fps = 0;                    ///< smoothed frames per second
    std::string gpuMemory;             ///< GPU memory line for Stats ("n/a" on the CPU path)
    std::string gpuKernel;             ///< CUDA kernel of the last projection (empty: none)
    std::string pointPainter;          ///< what draws the points: "CUDA", "CPU" or "OpenGL"
    std::string pointDrawerReason;     ///< the point drawer chosen, and why
    std::string sessionPath;           ///< last session saved or loaded
    bool quitRequested = false;        ///< File > Quit
    /// A side-bar section the File menu or its shortcuts open next frame ("Open", "Export").
    std::string panelToOpen;
    std::vector<std::string> openPanels;  ///< the side-bar sections open this frame, by title
    std::deque<BiaxialSettings> plots;    ///< the biaxial plots, in the order they were opened
    PlotFrame biaxialFrame;               ///< where the first plot drew this frame
    std::array<float, 4> canvasArea{0, 0, 0, 0};  ///< x, y, width, height between the side bars
    std::string selectedGate;                     ///< the population selected in the Gates window
    /// What "Polish the picture" runs next (the Training window's): t-SNE-like first, the
    /// picture that keeps the most neighbourhoods (docs/QUALITY.md); UMAP-like is the quick one.
    app::PolishChoice polish{PolishKernel::StudentT, 150, 30.0f};

    /// The first biaxial plot's settings (made when there is none).
    BiaxialSettings& firstPlot() {
        if (plots.empty()) plots.emplace_back();
        return plots.front();
    }

    /// Logs an error from a UI action and keeps running.
    void error(const std::string& what) { workspace.log(app::LogEntry::Error, what); }
};

}  // namespace sepal::ui
