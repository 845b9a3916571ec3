#include "ui/canvas.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/raster/viewport.h"
#include "ui/brush_target.h"
#include "ui/small_multiples.h"

namespace sepal::ui {

namespace {
constexpr float kLandmarkPickPx = 9.0f;
constexpr float kPointPickPx = 6.0f;
constexpr float kClickSlopPx = 4.0f;
}  // namespace

void Canvas::setArea(float x, float y, float width, float height) {
    m_x = x, m_y = y, m_w = std::max(width, 1.0f), m_h = std::max(height, 1.0f);
}

int Canvas::landmarkAt(const UiContext& ctx, float sx, float sy) const {
    const auto& m = ctx.workspace.state().model;
    if (!ctx.workspace.state().view.showLandmarks) return -1;
    int best = -1;
    float bestD = kLandmarkPickPx * kLandmarkPickPx;
    for (size_t l = 0; l < m.count(); ++l) {
        auto p = ctx.camera.toScreen(m.low[2 * l], m.low[2 * l + 1]);
        float d = (p[0] - sx) * (p[0] - sx) + (p[1] - sy) * (p[1] - sy);
        if (d < bestD) bestD = d, best = int(l);
    }
    return best;
}

long Canvas::pointAt(const UiContext& ctx, float sx, float sy) const {
    const auto& xy = ctx.workspace.positions();
    const app::Gating& gating = ctx.workspace.state().gating;
    size_t n = xy.size() / 2;
    auto w = ctx.camera.toWorld(sx, sy);
    float r = kPointPickPx * ctx.camera.unitsPerPixel();
    float best = r * r;
    long found = -1;
    for (size_t i = 0; i < n; ++i) {
        // Only the cells drawn: those outside the embedded population keep positions from an
        // earlier picture, and a hover named such a cell over an empty spot.
        if (!gating.contains(i)) continue;
        float dx = xy[2 * i] - w[0], dy = xy[2 * i + 1] - w[1];
        float d = dx * dx + dy * dy;
        if (d < best) best = d, found = long(i);
    }
    return found;
}

void Canvas::fit(UiContext& ctx) {
    ctx.camera.fitClearOfCorner(pictureBounds(ctx), ctx.keySize[0], ctx.keySize[1]);
    m_fitView = ctx.camera.state();
}

render::Bounds Canvas::pictureBounds(const UiContext& ctx) const {
    const auto& st = ctx.workspace.state();
    const auto& m = st.model;
    const auto& xy = ctx.workspace.positions();
    render::Bounds b{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
                     std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest()};
    auto add = [&](float x, float y) {
        if (!std::isfinite(x) || !std::isfinite(y)) return;
        b.minX = std::min(b.minX, x), b.maxX = std::max(b.maxX, x);
        b.minY = std::min(b.minY, y), b.maxY = std::max(b.maxY, y);
    };
    // Points only once projected (before that they all sit at the origin), by their robust
    // extent (as sepal-cli's pictures), so that a few stray cells do not shrink the picture.
    bool cells = false;
    raster::Extent e;
    if (ctx.workspace.stats().sweeps > 0 && xy.size() >= 2 &&
        raster::robustExtent(xy.data(), xy.size() / 2, e)) {
        add(float(e.minX), float(e.minY));
        add(float(e.maxX), float(e.maxY));
        cells = true;
    }
    // Every landmark while they are shown (each can be dragged); hidden, only those near the
    // cells: a landmark that won no cells may lie far out (k-means' empty ones, after refining),
    // and fitting it too shrank the picture into a corner.
    // Near: within half the cells' larger extent of their box (cells all on one point leave
    // no extent, and then every landmark counts).
    const float reach = cells ? 0.5f * std::max(b.maxX - b.minX, b.maxY - b.minY) : 0.0f;
    const bool every = !cells || st.view.showLandmarks || !(reach > 0);
    const render::Bounds near{b.minX - reach, b.minY - reach, b.maxX + reach, b.maxY + reach};
    for (size_t l = 0; l < m.count(); ++l) {
        const float x = m.low[2 * l], y = m.low[2 * l + 1];
        const bool inside = x >= near.minX && x <= near.maxX && y >= near.minY && y <= near.maxY;
        if (every || inside) add(x, y);
    }
    if (b.minX > b.maxX) b = {-1, -1, 1, 1};
    return b;
}

void Canvas::update(UiContext& ctx) {
    ImGuiIO& io = ImGui::GetIO();
    auto& ws = ctx.workspace;
    if (ws.state().data.events() == 0 && !ws.data().loading()) drawEmptyHint();
    // Not over small multiples, whose first panel's title takes that corner.
    if (ws.state().model.count() > 0 && !ws.state().view.showLandmarks &&
        smallMultiplePanels(ws.state(), m_w, m_h).empty())
        drawLandmarksHint();
    float mx = io.MousePos.x - m_x, my = io.MousePos.y - m_y;
    bool inside = mx >= 0 && my >= 0 && mx < m_w && my < m_h;
    bool free = !io.WantCaptureMouse || m_gesture != Gesture::None;

    if (!io.WantCaptureKeyboard) {
        if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) ctx.camera.panPixels(40, 0);
        if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) ctx.camera.panPixels(-40, 0);
        if (ImGui::IsKeyPressed(GLFW_KEY_UP)) ctx.camera.panPixels(0, 40);
        if (ImGui::IsKeyPressed(GLFW_KEY_DOWN)) ctx.camera.panPixels(0, -40);
        if (ImGui::IsKeyPressed(GLFW_KEY_F) || ImGui::IsKeyPressed(GLFW_KEY_HOME)) fit(ctx);
        if (ImGui::IsKeyPressed(GLFW_KEY_L) && !io.KeyCtrl) {
            app::ViewSettings v = ws.state().view;
            v.showLandmarks = !v.showLandmarks;
            ws.edits().setView(v), ws.edits().seal();
        }
        if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) m_selection.clear(), ctx.splitFrom.clear();
        if (ImGui::IsKeyPressed(GLFW_KEY_DELETE)) {
            std::vector<size_t> del(m_selection.begin(), m_selection.end());
            if (del.empty() && m_hoveredLandmark >= 0) del.push_back(size_t(m_hoveredLandmark));
            if (!del.empty()) ws.edits().removeLandmarks(del), m_selection.clear();
        }
    }

    // Small multiples are for looking: landmarks and the lasso work on the overlay.
    const auto& st = ws.state();
    if (st.view.smallMultiples && st.data.samples.size() > 1) {
        m_gesture = Gesture::None;
        m_hoveredLandmark = -1;
        return;
    }
    if (m_gesture == Gesture::None)
        m_hoveredLandmark = inside && free ? landmarkAt(ctx, mx, my) : -1;

    if (inside && free && m_gesture == Gesture::None) {
        if (io.MouseWheel != 0) ctx.camera.zoomAbout(mx, my, std::pow(1.15f, io.MouseWheel));
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
            m_press = {mx, my};
            if (io.KeyCtrl) {
                m_gesture = Gesture::CtrlClick;
            } else if (io.KeyShift) {
                m_gesture = Gesture::Box;
            } else if (ctx.lassoTool) {
                m_gesture = Gesture::Lasso;
                m_lasso = {mx, my};
            } else if (m_hoveredLandmark >= 0) {
                size_t h = size_t(m_hoveredLandmark);
                if (!m_selection.count(h)) m_selection = {h};
                m_gesture = Gesture::DragLandmarks;
                m_dragIndices.assign(m_selection.begin(), m_selection.end());
                m_dragStart.clear();
                const auto& m = ws.state().model;
                for (size_t l : m_dragIndices)
                    m_dragStart.insert(m_dragStart.end(), {m.low[2 * l], m.low[2 * l + 1]});
                ws.edits().beginLandmarkDrag();
            } else {
                m_gesture = Gesture::Pan;
            }
        } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
            m_press = {mx, my};
            if (io.KeyCtrl) {
                if (m_hoveredLandmark >= 0) {
                    ws.edits().removeLandmarks({size_t(m_hoveredLandmark)});
                    m_selection.clear();
                    m_hoveredLandmark = -1;
                }
            } else {
                m_gesture = Gesture::Lasso;
                m_lasso = {mx, my};
            }
        }
    }

    auto* fg = ImGui::GetForegroundDrawList();
    switch (m_gesture) {
        case Gesture::Pan:
            if (ImGui::IsMouseDown(ImGuiMouseButton_Left))
                ctx.camera.panPixels(io.MouseDelta.x, io.MouseDelta.y);
            else
                m_gesture = Gesture::None;
            break;
        case Gesture::DragLandmarks: {
            auto now = ctx.camera.toWorld(mx, my);
            auto start = ctx.camera.toWorld(m_press[0], m_press[1]);
            std::vector<float> xy(m_dragStart.size());
            for (size_t i = 0; i < m_dragIndices.size(); ++i) {
                xy[2 * i] = m_dragStart[2 * i] + now[0] - start[0];
                xy[2 * i + 1] = m_dragStart[2 * i + 1] + now[1] - start[1];
            }
            if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0)
                ws.edits().dragLandmarks(m_dragIndices, xy);
            if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
                ws.edits().dragLandmarks(m_dragIndices, xy);
                ws.edits().endLandmarkDrag(m_dragIndices.size() == 1
                                               ? "Move landmark " + std::to_string(m_dragIndices[0])
                                               : "Move " + std::to_string(m_dragIndices.size()) +
                                                     " landmarks");
                m_gesture = Gesture::None;
            }
            break;
        }
        case Gesture::Box: {
            float x0 = std::min(m_press[0], mx), x1 = std::max(m_press[0], mx);
            float y0 = std::min(m_press[1], my), y1 = std::max(m_press[1], my);
            fg->AddRectFilled(ImVec2(m_x + x0, m_y + y0), ImVec2(m_x + x1, m_y + y1),
                              IM_COL32(90, 160, 255, 40));
            fg->AddRect(ImVec2(m_x + x0, m_y + y0), ImVec2(m_x + x1, m_y + y1),
                        IM_COL32(90, 160, 255, 220));
            if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
                if (!io.KeyCtrl) m_selection.clear();
                const auto& m = ws.state().model;
                for (size_t l = 0; l < m.count(); ++l) {
                    auto p = ctx.camera.toScreen(m.low[2 * l], m.low[2 * l + 1]);
                    if (p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1) m_selection.insert(l);
                }
                m_gesture = Gesture::None;
            }
            break;
        }
        case Gesture::Lasso: {
            float lx = m_lasso[m_lasso.size() - 2], ly = m_lasso.back();
            if (std::hypot(mx - lx, my - ly) > 2.0f) m_lasso.insert(m_lasso.end(), {mx, my});
            for (size_t i = 2; i < m_lasso.size(); i += 2)
                fg->AddLine(ImVec2(m_x + m_lasso[i - 2], m_y + m_lasso[i - 1]),
                            ImVec2(m_x + m_lasso[i], m_y + m_lasso[i + 1]),
                            IM_COL32(255, 230, 90, 255), 2.0f);
            bool released = ctx.lassoTool && !ImGui::IsMouseDown(ImGuiMouseButton_Right)
                                ? !ImGui::IsMouseDown(ImGuiMouseButton_Left)
                                : !ImGui::IsMouseDown(ImGuiMouseButton_Right);
            if (released) {
                if (m_lasso.size() >= 6) {
                    std::vector<float> world;
                    for (size_t i = 0; i < m_lasso.size(); i += 2) {
                        auto w = ctx.camera.toWorld(m_lasso[i], m_lasso[i + 1]);
                        world.insert(world.end(), {w[0], w[1]});
                    }
                    ws.populations().brush(world, brushTarget(ctx), ctx.splitFrom);
                    ctx.splitFrom.clear();
                }
                m_lasso.clear();
                m_gesture = Gesture::None;
            }
            break;
        }
        case Gesture::CtrlClick:
            if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
                if (std::hypot(mx - m_press[0], my - m_press[1]) <= kClickSlopPx) {
                    auto w = ctx.camera.toWorld(mx, my);
                    ws.edits().addLandmark(w[0], w[1]);
                }
                m_gesture = Gesture::None;
            }
            break;
        case Gesture::None:
            break;
    }
    if (inside && free && m_gesture == Gesture::None) drawHover(ctx, mx, my);
}

void Canvas::drawEmptyHint() const {
    const char* lines[] = {"No data open.", "Open FCS or CSV files in the Open window on the left,",
                           "or drop them onto this window."};
    auto* dl = ImGui::GetBackgroundDrawList();
    const float line = ImGui::GetTextLineHeightWithSpacing();
    float y = m_y + m_h * 0.5f - line * 1.5f;
    for (const char* text : lines) {
        const float w = ImGui::CalcTextSize(text).x;
        dl->AddText(ImVec2(m_x + (m_w - w) * 0.5f, y), IM_COL32(200, 200, 200, 255), text);
        y += line;
    }
}

void Canvas::drawLandmarksHint() const {
    const char* text = "L shows the landmarks, to drag them";
    ImGui::GetBackgroundDrawList()->AddText(ImVec2(m_x + 10, m_y + 8), IM_COL32(150, 150, 150, 200),
                                            text);
}

void Canvas::drawHover(UiContext& ctx, float sx, float sy) {
    const auto& st = ctx.workspace.state();
    if (m_hoveredLandmark >= 0) {
        size_t l = size_t(m_hoveredLandmark);
        ImGui::BeginTooltip();
        ImGui::Text("landmark %zu%s", l, st.model.locked[l] ? " (locked)" : "");
        ImGui::EndTooltip();
        return;
    }
    if (st.data.events() > 4000000) return;  // brute-force picking would cost a frame
    if (sx != m_lastMouse[0] || sy != m_lastMouse[1]) {
        m_lastMouse = {sx, sy};
        m_hoverPoint = pointAt(ctx, sx, sy);
    }
    if (m_hoverPoint < 0 || size_t(m_hoverPoint) >= st.data.events()) return;
    size_t i = size_t(m_hoverPoint);
    ImGui::BeginTooltip();
    ImGui::Text("cell %zu  (%s)", i, st.data.samples[st.data.sampleOf[i]].name.c_str());
    uint8_t pop = i < st.populations.membership.size() ? st.populations.membership[i] : 0;
    if (pop > 0 && pop <= st.populations.groups.size())
        ImGui::Text("population: %s", st.populations.groups[pop - 1].name.c_str());
    // The file's own labels of the cell (an annotation or gating column), said to be the file's:
    // its "Population" beside the app's "population" read as one field written twice.
    for (const auto& [column, value] : st.data.labelsOf(i))
        ImGui::Text("%s (in the file): %s", column.c_str(), value.c_str());
    // The cell's highest markers: what sets it apart, in a few lines whatever the panel's size.
    const size_t d = st.data.columns.size();
    std::vector<size_t> order(d);
    for (size_t c = 0; c < d; ++c) order[c] = c;
    const size_t shown = std::min<size_t>(d, 8);
    std::partial_sort(
        order.begin(), order.begin() + long(shown), order.end(),
        [&](size_t a, size_t b) { return st.data.points.at(i, a) > st.data.points.at(i, b); });
    float labelWidth = 0;
    for (size_t k = 0; k < shown; ++k)
        labelWidth = std::max(labelWidth, ImGui::CalcTextSize(st.data.label(order[k]).c_str()).x);
    ImGui::TextDisabled("highest of %zu markers", d);
    for (size_t k = 0; k < shown; ++k) {
        ImGui::TextUnformatted(st.data.label(order[k]).c_str());
        ImGui::SameLine(labelWidth + 2 * ImGui::GetStyle().ItemSpacing.x);
        ImGui::Text("%7.2f", st.data.points.at(i, order[k]));
    }
    ImGui::EndTooltip();
}

}  // namespace sepal::ui
