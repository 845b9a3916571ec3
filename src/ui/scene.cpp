#include "ui/scene.h"

#include <algorithm>
#include <cmath>

namespace sepal::ui {

void drawScene(const app::Workspace& ws, const render::Camera& camera, float scale,
               render::ScatterRenderer& points, render::OverlayRenderer& overlay,
               const SceneMarks& marks) {
    const auto& st = ws.state();
    if (marks.layer)
        marks.layer->present(camera);
    else
        points.draw(camera, st.view.pointSize * scale, st.view.alpha);
    overlay.clear();
    const auto& m = st.model;
    const bool landmarks = marks.landmarks && (marks.chosen || st.view.showLandmarks);
    if (landmarks && marks.graph && (marks.chosen || st.view.showGraph)) {
        for (auto [a, b] : m.edges) {
            if (a >= m.count() || b >= m.count()) continue;
            auto p = camera.toScreen(m.low[2 * a], m.low[2 * a + 1]);
            auto q = camera.toScreen(m.low[2 * b], m.low[2 * b + 1]);
            overlay.line(p[0], p[1], q[0], q[1], 1.2f, {230, 230, 230, 90});
        }
    }
    if (landmarks) {
        // Hundreds of landmarks would hide the cells under full-size discs: smaller ones then.
        const float r = std::clamp(5.0f * std::sqrt(100.0f / float(std::max<size_t>(1, m.count()))),
                                   2.4f, 5.0f);
        for (size_t l = 0; l < m.count(); ++l) {
            auto p = camera.toScreen(m.low[2 * l], m.low[2 * l + 1]);
            bool selected = marks.selection && marks.selection->count(l);
            overlay.disc(p[0], p[1], r, {20, 20, 20, 230});
            render::Rgba8 fill = m.locked[l] ? render::Rgba8{255, 170, 60, 255}
                                 : selected  ? render::Rgba8{90, 170, 255, 255}
                                             : render::Rgba8{250, 250, 250, 255};
            overlay.disc(p[0], p[1], r * 0.72f, fill);
            if (int(l) == marks.hovered) overlay.ring(p[0], p[1], 8.0f, 1.5f, {255, 255, 255, 220});
        }
    }
    overlay.draw(camera.width(), camera.height());
}

}  // namespace sepal::ui
