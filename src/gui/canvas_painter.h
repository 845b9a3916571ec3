#pragma once
// The canvas's picture: the vertex buffers the frame's work fills (or the GPU projects into),
// the point layer drawn by the chosen point drawer, small multiples, the landmarks over them,
// and PNG exports of it.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "app/workspace.h"
#include "render/camera.h"
#include "render/overlay_renderer.h"
#include "render/point_drawer.h"
#include "render/point_layer.h"
#include "render/scatter_renderer.h"
#include "ui/canvas.h"
#include "ui/small_multiples.h"
#include "ui/ui_context.h"

namespace sepal::gui {

class GlDevicePositions;

/// Draws the cells and landmarks into the canvas's part of the window.
class CanvasPainter {
  public:
    /// drawerName: the point drawer asked for ("" or "auto": the best this machine has). With
    /// a backend that projects on the device, the workspace projects into the vertex buffer.
    CanvasPainter(app::Workspace& workspace, const std::string& drawerName);
    /// Hands the projection back to the CPU: the vertex buffer goes with the painter.
    ~CanvasPainter();

    /// Before the frame's work: the CUDA splats read the positions where the projector keeps
    /// them, small multiples the vertex buffer (which the projection then writes).
    void prepare(bool smallMultiples);
    /// Uploads what the frame's work changed.
    void upload(const app::FrameUpdate& update);
    /// Draws the canvas (origin and size in framebuffer pixels) with the camera: the point
    /// layer and the landmarks, or the small multiples' panels.
    void draw(const render::Camera& camera, const ui::Canvas& canvas, float fbScale,
              const std::vector<ui::MultiplePanel>& panels);
    /// Writes a PNG of the canvas at a size (the GL context must be current).
    void exportPng(const ui::PngRequest& request, ui::UiContext& ctx, const ui::Canvas& canvas);
    /// True while the point layer is still drawing the current picture.
    bool busy() const { return m_layer->busy(); }
    /// True when the canvas shows the current picture whole (small multiples are drawn every
    /// frame, the layer then waits).
    bool settled() const { return !m_layer->busy() || m_smallMultiples; }
    /// What drew the point layer last: "CUDA", "CPU" or "OpenGL".
    const char* drawnBy() const { return m_lastDrawer->label(); }
    /// Why the point drawer was chosen (Stats).
    const std::string& drawerReason() const { return m_drawerReason; }
    /// Milliseconds of drawing the layer may take a frame.
    double layerBudgetMs() const { return m_layerBudgetMs; }
    /// Milliseconds the last complete redraw of the layer took.
    double lastRedrawMs() const { return m_layer->lastRedrawMs(); }
    /// Milliseconds the CUDA splats' last picture took on the device.
    double lastSplatDeviceMs() const { return m_layer->lastCudaDeviceMs(); }

  private:
    /// True while the cells a finished drag moved are still being projected on the CPU (the
    /// layer then holds its picture); restarts a redraw under way once every cell is projected.
    bool catchingUpAfterDrag();
    /// Advances the point layer with the chosen drawer, OpenGL's points when it cannot.
    void advanceLayer(const render::LayerStyle& style);

    app::Workspace& m_workspace;
    std::unique_ptr<render::ScatterRenderer> m_points;
    std::unique_ptr<render::OverlayRenderer> m_overlay;
    std::unique_ptr<render::PointLayer> m_layer;
    std::unique_ptr<GlDevicePositions> m_devicePositions;
    std::unique_ptr<render::PointDrawer> m_drawer, m_openGl;
    render::PointDrawer* m_lastDrawer = nullptr;
    std::string m_drawerReason;
    double m_layerBudgetMs = 12.0;
    uint64_t m_coloursVersion = 0;
    bool m_redraw = false;  // what the layer shows changed this frame
    std::array<float, 5> m_lastLook{};
    bool m_smallMultiples = false;  // the canvas showed small multiples last frame
    double m_dragEndedAt = 0;       // when the last landmark drag ended (seconds)
    bool m_wasDragging = false, m_wasIdle = false;
};

}  // namespace sepal::gui
