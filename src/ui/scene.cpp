#include "ui/scene.h"

namespace sepal::ui {

void drawScene(const app::Workspace& ws, const render::Camera& camera, float scale,
               render::ScatterRenderer& points, render::OverlayRenderer& overlay,
               const SceneMarks& marks) {
    const auto& st = ws.state();
    points.draw(camera, st.view.pointSize * scale, st.view.alpha);
    overlay.clear();
    const auto& m = st.model;
    if (st.view.showGraph && st.view.showLandmarks) {
        for (auto [a, b] : m.edges) {
            if (a >= m.count() || b >= m.count()) continue;
            auto p = camera.toScreen(m.low[2 * a], m.low[2 * a + 1]);
            auto q = camera.toScreen(m.low[2 * b], m.low[2 * b + 1]);
            overlay.line(p[0], p[1], q[0], q[1], 1.2f, {230, 230, 230, 90});
        }
    }
    if (st.view.showLandmarks) {
        for (size_t l = 0; l < m.count(); ++l) {
            auto p = camera.toScreen(m.low[2 * l], m.low[2 * l + 1]);
            bool selected = marks.selection && marks.selection->count(l);
            overlay.disc(p[0], p[1], 5.0f, {20, 20, 20, 230});
            render::Rgba8 fill = m.locked[l] ? render::Rgba8{255, 170, 60, 255}
                                 : selected  ? render::Rgba8{90, 170, 255, 255}
                                             : render::Rgba8{250, 250, 250, 255};
            overlay.disc(p[0], p[1], 3.6f, fill);
            if (int(l) == marks.hovered) overlay.ring(p[0], p[1], 8.0f, 1.5f, {255, 255, 255, 220});
        }
    }
    if (marks.colourKey) {
        // Without text: a vertical colour bar or a column of legend swatches at the right edge.
        const auto& key = ws.colourKey();
        float x = camera.width() - 40, y0 = camera.height() * 0.15f, y1 = camera.height() * 0.85f;
        if (key.continuous) {
            int steps = 64;
            for (int i = 0; i < steps; ++i) {
                auto c = app::colourMap(key.map, 1.0f - float(i) / float(steps - 1));
                float a = y0 + (y1 - y0) * float(i) / float(steps);
                overlay.line(x, a, x, a + (y1 - y0) / float(steps) + 0.5f, 18,
                             {c[0], c[1], c[2], 255});
            }
        } else {
            for (size_t i = 0; i < key.legend.size() && i < 24; ++i) {
                auto c = key.legend[i].colour;
                overlay.disc(x, y0 + 22.0f * float(i), 7, {c[0], c[1], c[2], 255});
            }
        }
    }
    overlay.draw(camera.width(), camera.height());
}

}  // namespace sepal::ui
