#include "ui/heatmap_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "core/color/colormap.h"

namespace sepal::ui {

void HeatmapPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.populations.groups.empty()) {
        ImGui::TextWrapped("No populations yet: Populations > From landmarks, or the lasso.");
        return;
    }
    if (m_counter != st.counter) {
        m_heatmap = ws.populations().heatmap();
        m_counter = st.counter;
    }
    const auto& h = m_heatmap;
    const size_t k = h.rows.size(), d = h.columns.size();
    const float line = ImGui::GetTextLineHeightWithSpacing();
    // A swatch of each population's colour at the left ties the rows to the canvas.
    const float swatch = 8.0f;
    const float cell =
        std::max(6.0f, (ImGui::GetContentRegionAvail().x - swatch - 6.0f) / float(d));
    const auto table = color::colormapTable(color::Colormap::Viridis);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    // The marker under the mouse, named above the grid (the columns are too narrow for names).
    const ImVec2 mouse = ImGui::GetMousePos();
    ImVec2 origin = ImGui::GetCursorScreenPos();
    origin.y += line;
    origin.x += swatch + 4.0f;
    int hoverRow = -1, hoverColumn = -1;
    if (mouse.x >= origin.x && mouse.x < origin.x + cell * float(d) && mouse.y >= origin.y &&
        mouse.y < origin.y + line * float(k)) {
        hoverColumn = int((mouse.x - origin.x) / cell);
        hoverRow = int((mouse.y - origin.y) / line);
    }
    if (hoverColumn >= 0)
        ImGui::Text("%s: %s %.2f", h.rows[size_t(hoverRow)].c_str(),
                    h.columns[size_t(hoverColumn)].c_str(),
                    h.medians[size_t(hoverRow) * d + size_t(hoverColumn)]);
    else
        ImGui::TextDisabled("%zu populations x %zu markers (hover a cell)", k, d);
    for (size_t r = 0; r < k && r < st.populations.groups.size(); ++r) {
        const auto& c = st.populations.groups[r].colour;
        const float y = origin.y + line * float(r);
        draw->AddRectFilled(ImVec2(origin.x - swatch - 4.0f, y + 1),
                            ImVec2(origin.x - 4.0f, y + line - 1), IM_COL32(c[0], c[1], c[2], 255));
    }
    for (size_t r = 0; r < k; ++r)
        for (size_t t = 0; t < d; ++t) {
            const float v = h.scaled[r * d + t];
            const auto c = std::isfinite(v) ? table[size_t(std::lround(v * 255.0f))]
                                            : color::Rgba8{70, 70, 70, 255};
            const ImVec2 a(origin.x + cell * float(t), origin.y + line * float(r));
            draw->AddRectFilled(ImVec2(a.x + 1, a.y + 1), ImVec2(a.x + cell - 1, a.y + line - 1),
                                IM_COL32(c.r, c.g, c.b, 255));
        }
    ImGui::Dummy(ImVec2(swatch + 4.0f + cell * float(d), line * float(k)));
    // The rows: name and count; a click makes the population the lasso's target.
    for (size_t r = 0; r < k; ++r) {
        ImGui::PushID(int(r));
        // A click shows the population on the canvas (the others greyed; again: all) and makes
        // it the lasso's target.
        const bool shown =
            st.colour.mode == app::ColourMode::Population && st.colour.highlight == h.rows[r];
        if (ImGui::Selectable(h.rows[r].c_str(), shown || ctx.brushName == h.rows[r])) {
            ctx.brushName = h.rows[r];
            app::ColourSettings c = st.colour;
            c.mode = app::ColourMode::Population;
            c.highlight = shown ? std::string() : h.rows[r];
            ws.edits().setColour(c);
            ws.edits().seal();
        }
        ImGui::SameLine(ImGui::GetContentRegionAvail().x - 60);
        ImGui::Text("%zu", h.cells[r]);
        ImGui::PopID();
    }
}

}  // namespace sepal::ui
