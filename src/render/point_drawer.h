#pragma once
// The ways the point layer's picture is drawn, chosen by name: CUDA splats (the GPU projects and
// OpenGL runs on its driver), CPU splats (software OpenGL rasterises points slowly) and OpenGL's
// own points. The choice is made once, with its reason shown in Stats; a frame whose positions
// the chosen drawer cannot reach (no device copy, no host copy) is drawn by OpenGL's points.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/point_layer.h"
#include "render/scatter_renderer.h"

namespace sepal::render {

/// Where the cells' positions and colours are this frame.
struct PointSource {
    const ScatterRenderer* buffers = nullptr;  ///< the vertex buffers (always current)
    const float* hostXy = nullptr;             ///< n x 2 on the host (null: not the drawn ones)
    const uint8_t* hostRgba = nullptr;         ///< n x 4 on the host
    const float* deviceXy = nullptr;           ///< n x 2 on the device (null: none)
    size_t n = 0;                              ///< cells
    uint64_t coloursVersion = 0;               ///< changes whenever the colours change
};

/// How the layer is drawn this frame.
struct LayerStyle {
    Camera camera;        ///< the canvas's view
    float pointSize = 1;  ///< framebuffer pixels
    float alpha = 1;      ///< opacity of a splat
    int width = 0;        ///< framebuffer pixels of the canvas
    int height = 0;       ///< framebuffer pixels of the canvas
    double budgetMs = 8;  ///< drawing time this frame may take
    bool idle = false;    ///< nothing else needs the frame: the picture may take more of it
    bool hold = false;    ///< keep the front picture (the host positions are catching up)
};

/// One way of drawing the point layer.
class PointDrawer {
  public:
    virtual ~PointDrawer() = default;
    /// What chooses it: "cuda-splats", "cpu-splats" or "opengl-points".
    virtual const char* name() const = 0;
    /// What Stats and --bench-frames call it: "CUDA", "CPU" or "OpenGL".
    virtual const char* label() const = 0;
    /// True when it draws the positions the projector keeps on the device (they should stay
    /// there rather than be copied into the vertex buffer).
    virtual bool drawsFromDevice() const { return false; }
    /// True when it draws from the host positions, which after a drag catch up with the
    /// landmarks over a second: its picture then holds (LayerStyle::hold) rather than redraw.
    virtual bool holdsAfterDrag() const { return false; }
    /// Advances the layer's picture; false when it cannot draw this source (the caller draws
    /// OpenGL's points). Throws std::runtime_error when its device fails.
    virtual bool advance(PointLayer& layer, const PointSource& source, const LayerStyle& style) = 0;
};

/// What the choice depends on.
struct DrawerMachine {
    bool hardwareOpenGl = false;  ///< OpenGL runs on a GPU (not Mesa's llvmpipe)
    bool cudaBuilt = false;       ///< this build can splat with CUDA
    bool cudaAllowed = true;      ///< the CUDA splats may be chosen (SEPAL_CUDA_SPLATS=0: no)
    bool cpuAllowed = true;       ///< the CPU's splats may be chosen (SEPAL_CPU_SPLATS=0: no)
};

/// A drawer and why it was chosen.
struct DrawerChoice {
    std::unique_ptr<PointDrawer> drawer;  ///< the drawer
    std::string reason;                   ///< one sentence for Stats
};

/// Every drawer's name, in the order "auto" prefers them.
std::vector<std::string> pointDrawerNames();
/// The drawer called `name`, or for "" and "auto" the best one the machine has; a name the
/// machine cannot serve (or does not know) gets the best one, the reason saying why.
DrawerChoice choosePointDrawer(const std::string& name, const DrawerMachine& machine);
/// OpenGL's points: every frame can fall back to it.
std::unique_ptr<PointDrawer> openGlPointDrawer();

}  // namespace sepal::render
