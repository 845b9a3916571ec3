#include "gui/canvas_painter.h"

#include <epoxy/gl.h>

#include <cmath>
#include <cstdlib>
#include <exception>

#include "core/common/stopwatch.h"
#include "gui/gl_device_positions.h"
#include "render/cuda_layer.h"
#include "ui/png_export.h"
#include "ui/scene.h"

namespace sepal::gui {

namespace {
// Drawing points into the cached layer, per frame. Software OpenGL gets more of the frame; on a
// GPU the frame also waits for the projection and the interop mapping, and the H100 draws 10M
// splats in ~58 ms whether straight (measured 12.5 frames/s) or through the layer.
constexpr double kSoftwareLayerBudgetMs = 12.0;
constexpr double kHardwareLayerBudgetMs = 8.0;
// After a drag, the CPU path projects the cells it moved within about a second; meanwhile the
// layer holds its picture (a redraw would be stale when done, and would slow the projection).
constexpr double kCatchUpSeconds = 1.5;

/// True when OpenGL runs on a GPU rather than in software (Mesa's llvmpipe under Xvfb).
bool hardwareOpenGl() {
    const auto* s = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string renderer = s ? s : "";
    for (const char* software : {"llvmpipe", "softpipe", "SWR", "Software Rasterizer"})
        if (renderer.find(software) != std::string::npos) return false;
    return !renderer.empty();
}
}  // namespace

CanvasPainter::CanvasPainter(app::Workspace& workspace, const std::string& drawerName)
    : m_workspace(workspace),
      m_points(std::make_unique<render::ScatterRenderer>()),
      m_overlay(std::make_unique<render::OverlayRenderer>()),
      m_layer(std::make_unique<render::PointLayer>()),
      m_openGl(render::openGlPointDrawer()) {
    const bool hardware = hardwareOpenGl();
    m_layerBudgetMs = hardware ? kHardwareLayerBudgetMs : kSoftwareLayerBudgetMs;
    // SEPAL_CUDA_SPLATS=0 and SEPAL_CPU_SPLATS=0 leave those drawers out (for comparisons).
    const auto off = [](const char* variable) {
        const char* v = std::getenv(variable);
        return v && std::string(v) == "0";
    };
    auto choice = render::choosePointDrawer(
        drawerName, {hardware, render::CudaLayerPainter::available(), !off("SEPAL_CUDA_SPLATS"),
                     !off("SEPAL_CPU_SPLATS")});
    m_drawer = std::move(choice.drawer);
    m_drawerReason = std::string(m_drawer->name()) + ": " + choice.reason;
    m_lastDrawer = m_drawer.get();
    // With a device-resident projector the GPU projects straight into the vertex buffer.
    if (auto* resident = m_workspace.backend().resident) {
        m_devicePositions = std::make_unique<GlDevicePositions>(*m_points);
        m_workspace.projectOnDevice(resident, m_devicePositions.get());
    }
}

CanvasPainter::~CanvasPainter() {
    if (m_devicePositions) m_workspace.projectOnDevice(nullptr, nullptr);
}

void CanvasPainter::prepare(bool smallMultiples) {
    m_workspace.projection().keepPositionsInProjector(m_drawer->drawsFromDevice() &&
                                                      !smallMultiples);
}

void CanvasPainter::upload(const app::FrameUpdate& update) {
    const auto& xy = m_workspace.positions();
    const size_t n = xy.size() / 2;
    // Positions the device wrote are in the vertex buffer already (or in the projector).
    const bool fromDevice = m_workspace.projection().drawsOnDevice();
    m_redraw = !update.positions.empty() || update.colours || update.deviceMoved;
    bool colours = update.colours, all = update.allPositions;
    if (m_points->size() != n) {
        // The device's registration of the old storage is dropped with it.
        if (m_devicePositions)
            m_devicePositions->resize(n);
        else
            m_points->resize(n);
        colours = all = m_redraw = true;
    }
    if (!fromDevice && all) {
        m_points->uploadPositions(0, n, xy.data());
    } else if (!fromDevice) {
        for (const auto& r : update.positions)
            m_points->uploadPositions(r.first, r.count, xy.data() + 2 * r.first);
    }
    if (colours && m_workspace.colours().size() == 4 * n) {
        m_points->uploadColours(0, n, m_workspace.colours().data());
        ++m_coloursVersion;
    }
}

bool CanvasPainter::catchingUpAfterDrag() {
    const double t = monotonicSeconds();
    const bool dragging = m_workspace.edits().dragging(), idle = m_workspace.idle();
    if (m_wasDragging && !dragging) m_dragEndedAt = t;
    m_wasDragging = dragging;
    // Positions final again: a redraw under way holds some of the old ones, so it starts anew.
    if (idle && !m_wasIdle && m_layer->busy()) m_layer->restart();
    m_wasIdle = idle;
    return !dragging && !idle && m_dragEndedAt > 0 && t - m_dragEndedAt < kCatchUpSeconds;
}

void CanvasPainter::advanceLayer(const render::LayerStyle& style) {
    auto& projection = m_workspace.projection();
    const auto& xy = m_workspace.positions();
    const auto& rgba = m_workspace.colours();
    render::PointSource source;
    source.buffers = m_points.get();
    source.n = m_points->size();
    source.coloursVersion = m_coloursVersion;
    if (rgba.size() == 4 * source.n) source.hostRgba = rgba.data();
    // The host positions are the drawn ones on the CPU path; the GPU's live on the device.
    if (!projection.drawsOnDevice() && xy.size() == 2 * source.n) source.hostXy = xy.data();
    // The projector holds the workspace's cells (a new data set is uploaded first).
    if (source.n == m_workspace.state().data.events())
        source.deviceXy = projection.projectorPositions();
    try {
        if (m_drawer->advance(*m_layer, source, style)) {
            m_lastDrawer = m_drawer.get();
            return;
        }
    } catch (const std::exception& e) {
        m_workspace.log(app::LogEntry::Warning, std::string(m_drawer->label()) +
                                                    " cannot draw the points (" + e.what() +
                                                    "); OpenGL draws them");
        m_lastDrawer = m_openGl.get();
        m_drawer = render::openGlPointDrawer();
        m_drawerReason = std::string(m_drawer->name()) + ": the other drawer failed";
        projection.keepPositionsInProjector(false);  // OpenGL draws from the vertex buffer
    }
    m_openGl->advance(*m_layer, source, style);
    m_lastDrawer = m_openGl.get();
}

void CanvasPainter::draw(const render::Camera& camera, const ui::Canvas& canvas, float fbScale,
                         const std::vector<ui::MultiplePanel>& panels) {
    const auto origin = canvas.origin();
    const int vx = int(std::lround(origin[0] * fbScale));
    const int vw = int(std::lround(camera.width() * fbScale));
    const int vh = int(std::lround(camera.height() * fbScale));
    // The point layer is redrawn when what it shows changed, spread over frames when slow.
    const auto& view = m_workspace.state().view;
    const auto cam = camera.state();
    const std::array<float, 5> look = {cam[0], cam[1], cam[2], view.pointSize, view.alpha};
    // Back from small multiples, the overlay's layer is drawn anew.
    if (m_redraw || look != m_lastLook || panels.empty() == m_smallMultiples) m_layer->invalidate();
    m_lastLook = look;
    m_smallMultiples = !panels.empty();
    if (panels.empty()) {
        // Only a drawer that keeps its picture while the host positions catch up waits.
        const bool hold = m_drawer->holdsAfterDrag() && catchingUpAfterDrag();
        advanceLayer({camera, view.pointSize * fbScale, view.alpha, vw, vh, m_layerBudgetMs,
                      m_workspace.idle(), hold});
        glViewport(vx, 0, vw, vh);
        ui::drawScene(m_workspace, camera, fbScale, *m_points, *m_overlay,
                      {&canvas.selection(), canvas.hoveredLandmark(), m_layer.get()});
    }
    // Small multiples: each panel's samples drawn straight, in the panel's part of the canvas.
    for (const auto& p : panels) {
        const auto panel = ui::panelCamera(camera, p);
        glViewport(vx + int(std::lround(p.x * fbScale)),
                   vh - int(std::lround((p.y + p.height) * fbScale)),
                   int(std::lround(p.width * fbScale)), int(std::lround(p.height * fbScale)));
        for (const auto& [first, count] : p.ranges)
            m_points->drawRange(panel, view.pointSize * fbScale, view.alpha, first, count);
    }
}

void CanvasPainter::exportPng(const ui::PngRequest& request, ui::UiContext& ctx,
                              const ui::Canvas& canvas) {
    m_workspace.projection().fillVertexBuffer();  // the export draws the vertex buffer
    ui::exportPicture(request, ctx, canvas, *m_points, *m_overlay);
}

}  // namespace sepal::gui
