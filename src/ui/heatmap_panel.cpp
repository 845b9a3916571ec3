#include "ui/heatmap_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/color/colormap.h"
#include "ui/fitted_text.h"

namespace sepal::ui {

namespace {

/// `text` drawn reading upwards with its first letter at (x, bottom): ImGui draws text level, so
/// the glyphs' vertices are turned a quarter about that point.
void textUpwards(ImDrawList* draw, ImVec2 at, const char* text, ImU32 colour) {
    const int first = draw->VtxBuffer.Size;
    draw->AddText(at, colour, text);
    for (int i = first; i < draw->VtxBuffer.Size; ++i) {
        ImVec2& p = draw->VtxBuffer[i].pos;
        const ImVec2 d(p.x - at.x, p.y - at.y);
        p = ImVec2(at.x + d.y, at.y - d.x);
    }
}

}  // namespace

bool HeatmapPanel::refresh(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.populations.groups.empty()) return false;
    if (m_counter != st.counter) {
        m_heatmap = ws.populations().heatmap();
        m_order = heatmapOrder(m_heatmap);
        m_counter = st.counter;
    }
    return true;
}

void HeatmapPanel::draw(UiContext& ctx) {
    if (!refresh(ctx)) {
        ImGui::TextWrapped("No populations yet: Populations > From landmarks, or the lasso.");
        return;
    }
    ImGui::SetNextItemWidth(110);
    ImGui::SliderFloat("zoom", &m_cell, 10.0f, 40.0f, "%.0f px");
    ImGui::SameLine();
    ImGui::Checkbox("large window", &ctx.heatmapWindow);
    drawGrid(ctx, "heatmap");
}

void HeatmapPanel::drawWindows(UiContext& ctx) {
    if (!ctx.heatmapWindow || !refresh(ctx)) return;
    // Sized to the heatmap on first showing, within the screen; resizable after.
    const ImVec2 screen = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowSize(
        ImVec2(std::min(screen.x * 0.8f, 1200.0f), std::min(screen.y * 0.8f, 800.0f)),
        ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Heatmap of the populations", &ctx.heatmapWindow)) {
        ImGui::SetNextItemWidth(110);
        ImGui::SliderFloat("zoom", &m_cell, 10.0f, 40.0f, "%.0f px");
        drawGrid(ctx, "heatmap large");
    }
    ImGui::End();
}

void HeatmapPanel::drawGrid(UiContext& ctx, const char* id) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    const auto& h = m_heatmap;
    const size_t k = h.rows.size(), d = h.columns.size();
    const float line = ImGui::GetTextLineHeight();
    const float cellWidth = std::max(m_cell, line + 2.0f), cellHeight = line + 4.0f;
    const float gap = 8.0f, swatch = 8.0f;
    float nameWidth = 0, labelHeight = 0;
    for (const auto& r : h.rows) nameWidth = std::max(nameWidth, ImGui::CalcTextSize(r.c_str()).x);
    // The names take at most two fifths of the view, so that the grid starts inside a narrow
    // side bar (a name as long as "Doublets (positive on 15 of 24 lineage markers)" pushed it
    // out of sight); a shortened name is whole in its row's tooltip.
    nameWidth = std::min(nameWidth, std::max(60.0f, 0.4f * ImGui::GetContentRegionAvail().x));
    for (const auto& c : h.columns)
        labelHeight = std::max(labelHeight, ImGui::CalcTextSize(c.c_str()).x);
    size_t total = 0;
    for (size_t c : h.cells) total += c;
    // Column positions: the blocks apart by a gap.
    std::vector<float> columnX(m_order.columns.size());
    float x = swatch + 4.0f + nameWidth + 8.0f;
    for (size_t i = 0; i < columnX.size(); ++i) {
        if (i > 0 && m_order.block[i] != m_order.block[i - 1]) x += gap;
        columnX[i] = x;
        x += cellWidth;
    }
    const float gridRight = x, countsWidth = ImGui::CalcTextSize("000000  100.0%").x;
    const bool blocks = m_order.columnTrees.size() > 1;
    const float top = (blocks ? line + 4.0f : 0.0f) + labelHeight + 6.0f;
    const ImVec2 size(gridRight + 8.0f + countsWidth, top + cellHeight * float(k));

    // The picture scrolls both ways inside the window, the names and labels with it.
    ImGui::BeginChild(id, ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const auto table = color::colormapTable(color::Colormap::Viridis);
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    if (blocks)
        for (size_t b = 0; b < m_order.blockStart.size(); ++b) {
            const MarkerClass c = m_order.block[m_order.blockStart[b]];
            draw->AddText(ImVec2(origin.x + columnX[m_order.blockStart[b]], origin.y), faint,
                          c == MarkerClass::Type    ? "type markers"
                          : c == MarkerClass::State ? "state markers"
                                                    : "other channels");
        }
    for (size_t i = 0; i < m_order.columns.size(); ++i)
        textUpwards(draw,
                    ImVec2(origin.x + columnX[i] + (cellWidth - line) / 2, origin.y + top - 4.0f),
                    h.columns[m_order.columns[i]].c_str(), ink);
    const ImVec2 mouse = ImGui::GetMousePos();
    int hoverRow = -1, hoverColumn = -1;
    const std::vector<std::string> fittedRows = fittedNames(h.rows, nameWidth);
    for (size_t pos = 0; pos < k; ++pos) {
        const size_t r = m_order.rowTree.order[pos];
        const float y = origin.y + top + cellHeight * float(pos);
        if (r < st.populations.groups.size()) {
            const auto& c = st.populations.groups[r].colour;
            draw->AddRectFilled(ImVec2(origin.x, y + 2),
                                ImVec2(origin.x + swatch, y + cellHeight - 2),
                                IM_COL32(c[0], c[1], c[2], 255));
        }
        const std::string& name = fittedRows[r];
        draw->AddText(
            ImVec2(origin.x + swatch + 4.0f + nameWidth - ImGui::CalcTextSize(name.c_str()).x,
                   y + 2.0f),
            ink, name.c_str());
        for (size_t i = 0; i < m_order.columns.size(); ++i) {
            const float v = h.scaled[r * d + m_order.columns[i]];
            const auto c = std::isfinite(v) ? table[size_t(std::lround(v * 255.0f))]
                                            : color::Rgba8{70, 70, 70, 255};
            const ImVec2 a(origin.x + columnX[i], y);
            draw->AddRectFilled(ImVec2(a.x + 1, a.y + 1),
                                ImVec2(a.x + cellWidth - 1, a.y + cellHeight - 1),
                                IM_COL32(c.r, c.g, c.b, 255));
            if (mouse.x >= a.x && mouse.x < a.x + cellWidth && mouse.y >= a.y &&
                mouse.y < a.y + cellHeight)
                hoverRow = int(r), hoverColumn = int(m_order.columns[i]);
        }
        char counts[48];
        std::snprintf(counts, sizeof counts, "%zu  %.1f%%", h.cells[r],
                      total ? 100.0 * double(h.cells[r]) / double(total) : 0.0);
        draw->AddText(ImVec2(origin.x + gridRight + 8.0f, y + 2.0f), ink, counts);
        // A click on the row's name shows the population on the canvas (the others greyed;
        // again: all) and makes it the lasso's target.
        ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
        ImGui::PushID(int(r));
        if (ImGui::InvisibleButton("row", ImVec2(swatch + 4.0f + nameWidth, cellHeight))) {
            const bool shown =
                st.colour.mode == app::ColourMode::Population && st.colour.highlight == h.rows[r];
            ctx.brushName = h.rows[r];
            ctx.brushChosen = true;
            app::ColourSettings c = st.colour;
            c.mode = app::ColourMode::Population;
            c.highlight = shown ? std::string() : h.rows[r];
            ws.edits().setColour(c);
            ws.edits().seal();
        }
        if (ImGui::IsItemHovered()) {
            if (r < st.populations.groups.size() && !st.populations.groups[r].phenotype.empty())
                ImGui::SetTooltip("%s\n%s", h.rows[r].c_str(),
                                  st.populations.groups[r].phenotype.c_str());
            else
                ImGui::SetTooltip("%s", h.rows[r].c_str());
        }
        ImGui::PopID();
    }
    if (hoverColumn >= 0)
        ImGui::SetTooltip("%s: %s %.2f", h.rows[size_t(hoverRow)].c_str(),
                          h.columns[size_t(hoverColumn)].c_str(),
                          h.medians[size_t(hoverRow) * d + size_t(hoverColumn)]);
    ImGui::SetCursorScreenPos(origin);
    ImGui::Dummy(size);
    ImGui::EndChild();
}

}  // namespace sepal::ui
