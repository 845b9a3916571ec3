#include "ui/biaxial_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "core/transform/channel_label.h"
#include "core/transform/channel_roles.h"

namespace sepal::ui {

namespace {

/// The pair a user looks at first: DNA vs viability (mass cytometry clean-up), forward vs side
/// scatter (flow), else the first two channels.
std::pair<std::string, std::string> firstAxes(const io::Table& table) {
    const auto roles = channelRoles(table);
    const auto find = [&](ChannelRole role, size_t skip) -> int {
        for (size_t c = 0; c < roles.size(); ++c)
            if (roles[c] == role && skip-- == 0) return int(c);
        return -1;
    };
    // Forward against side scatter: the area channels when there are, else the first of each.
    const auto scatter = [&](const std::string& prefix) -> int {
        int first = -1;
        for (size_t c = 0; c < roles.size(); ++c) {
            const std::string& name = table.channels[c].name;
            if (roles[c] != ChannelRole::Scatter || name.rfind(prefix, 0) != 0) continue;
            if (name.size() >= 2 && name.compare(name.size() - 2, 2, "-A") == 0) return int(c);
            if (first < 0) first = int(c);
        }
        return first;
    };
    int x = find(ChannelRole::Dna, 0), y = find(ChannelRole::Viability, 0);
    if (x < 0 || y < 0) x = scatter("FSC"), y = scatter("SSC");
    if (x < 0 || y < 0) x = find(ChannelRole::Scatter, 0), y = find(ChannelRole::Scatter, 1);
    if (x < 0 || y < 0) x = 0, y = table.channels.size() > 1 ? 1 : 0;
    return {table.channels[size_t(x)].name, table.channels[size_t(y)].name};
}

/// "arcsinh(x/5)" or "linear": how an axis scales its channel.
std::string scaleName(const ColumnTransform& t) {
    if (t.kind == ColumnTransform::Kind::Arcsinh) {
        char text[48];
        std::snprintf(text, sizeof text, "arcsinh(x/%g)", t.cofactor);
        return text;
    }
    return t.kind == ColumnTransform::Kind::Logicle ? "logicle" : "linear";
}

/// A combo listing the table's channels by label; `name` holds the chosen channel's name.
bool channelCombo(const char* id, const io::Table& table, std::string& name) {
    const int current = table.findChannel(name);
    const std::string shown = current >= 0 ? channelLabel(table.channels[size_t(current)]) : name;
    bool changed = false;
    if (ImGui::BeginCombo(id, shown.c_str())) {
        for (size_t c = 0; c < table.channels.size(); ++c) {
            const bool selected = int(c) == current;
            if (ImGui::Selectable(channelLabel(table.channels[c]).c_str(), selected)) {
                name = table.channels[c].name;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    return changed;
}

}  // namespace

bool BiaxialPanel::refreshPlot(UiContext& ctx) {
    const auto& st = ctx.workspace.state();
    auto& settings = ctx.biaxial;
    if (settings.x.empty() || settings.y.empty())
        std::tie(settings.x, settings.y) = firstAxes(st.data.tables.front());
    const std::string key = std::to_string(st.version(app::Part::Data)) + "|" + settings.x + "|" +
                            settings.y + "|" + st.pipeline.toJson()["compensation"].dump();
    if (key == m_plotKey) return m_error.empty();
    m_plotKey = key;
    m_pictureKey.clear();
    m_drawing.clear();
    try {
        m_plot = app::biaxialOf(st.data, settings.x, settings.y, st.pipeline.compensation);
        m_error.clear();
    } catch (const std::exception& e) {
        m_error = e.what();
    }
    return m_error.empty();
}

void BiaxialPanel::addGate(UiContext& ctx, std::vector<float> polygon) {
    auto& ws = ctx.workspace;
    std::vector<Gate> gates = ws.state().gating.gates;
    std::string name = ctx.biaxial.gateName.empty() ? "gate" : ctx.biaxial.gateName;
    // Names stay unique: a second "live" becomes "live 2".
    const auto taken = [&](const std::string& n) {
        return std::any_of(gates.begin(), gates.end(), [&](const Gate& g) { return g.name == n; });
    };
    for (int i = 2; taken(name); ++i)
        name = (ctx.biaxial.gateName.empty() ? "gate" : ctx.biaxial.gateName) + " " +
               std::to_string(i);
    gates.push_back({name, m_plot.axes, std::move(polygon)});
    ws.gates().set(std::move(gates), "Gate " + name);
}

void BiaxialPanel::drawGates(UiContext& ctx, float ox, float oy, float size) {
    const auto& st = ctx.workspace.state();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const auto toScreen = [&](float vx, float vy) {
        return ImVec2(ox + (vx - m_plot.low[0]) / (m_plot.high[0] - m_plot.low[0]) * size,
                      oy + (1 - (vy - m_plot.low[1]) / (m_plot.high[1] - m_plot.low[1])) * size);
    };
    const ImVec2 mouse = ImGui::GetMousePos();
    const float mx = m_plot.low[0] + (mouse.x - ox) / size * (m_plot.high[0] - m_plot.low[0]);
    const float my = m_plot.low[1] + (1 - (mouse.y - oy) / size) * (m_plot.high[1] - m_plot.low[1]);
    draw->PushClipRect(ImVec2(ox, oy), ImVec2(ox + size, oy + size), true);
    // The gates drawn on these two channels, with their names; one on another scale (another
    // cofactor or compensation) is drawn grey: its polygon is in other units than the plot's.
    const auto plotAxes = m_plot.axes.toJson();
    for (const Gate& g : st.gating.gates) {
        if (g.axes.steps[0].name != m_plot.axes.steps[0].name ||
            g.axes.steps[1].name != m_plot.axes.steps[1].name)
            continue;
        const bool sameScale = g.axes.toJson() == plotAxes;
        std::vector<ImVec2> points;
        for (size_t i = 0; i + 1 < g.polygon.size(); i += 2)
            points.push_back(toScreen(g.polygon[i], g.polygon[i + 1]));
        draw->AddPolyline(points.data(), int(points.size()),
                          sameScale ? IM_COL32(255, 140, 40, 255) : IM_COL32(150, 150, 150, 200),
                          ImDrawFlags_Closed, 2.0f);
        const std::string label = sameScale ? g.name : g.name + " (on another scale)";
        draw->AddText(ImVec2(points[0].x + 3, points[0].y - 16),
                      sameScale ? IM_COL32(255, 170, 80, 255) : IM_COL32(170, 170, 170, 255),
                      label.c_str());
    }
    // The gate being drawn.
    const bool hovered = ImGui::IsItemHovered();
    if (ctx.biaxial.polygon) {
        if (hovered && ImGui::IsMouseClicked(0)) {
            // A click near the first vertex closes the polygon.
            const bool closes = m_drawing.size() >= 6 &&
                                std::hypot(mouse.x - toScreen(m_drawing[0], m_drawing[1]).x,
                                           mouse.y - toScreen(m_drawing[0], m_drawing[1]).y) < 8;
            if (closes) {
                addGate(ctx, std::move(m_drawing));
                m_drawing.clear();
            } else {
                m_drawing.insert(m_drawing.end(), {mx, my});
            }
        }
        if (hovered && ImGui::IsMouseClicked(1)) m_drawing.clear();
        if (!m_drawing.empty()) {
            std::vector<ImVec2> points;
            for (size_t i = 0; i + 1 < m_drawing.size(); i += 2)
                points.push_back(toScreen(m_drawing[i], m_drawing[i + 1]));
            points.push_back(mouse);
            draw->AddPolyline(points.data(), int(points.size()), IM_COL32(255, 255, 255, 220), 0,
                              1.5f);
        }
    } else {
        if (hovered && ImGui::IsMouseClicked(0)) {
            m_dragging = true;
            m_dragStart[0] = mx, m_dragStart[1] = my;
        }
        if (m_dragging) {
            draw->AddRect(toScreen(m_dragStart[0], m_dragStart[1]), toScreen(mx, my),
                          IM_COL32(255, 255, 255, 220), 0, 0, 1.5f);
            if (!ImGui::IsMouseDown(0)) {
                m_dragging = false;
                const ImVec2 a = toScreen(m_dragStart[0], m_dragStart[1]);
                // A click without a drag is no gate.
                if (std::fabs(mouse.x - a.x) > 3 && std::fabs(mouse.y - a.y) > 3)
                    addGate(ctx, rectanglePolygon(m_dragStart[0], m_dragStart[1], mx, my));
            }
        }
    }
    draw->PopClipRect();
    if (hovered) ImGui::SetTooltip("%.2f, %.2f", mx, my);
}

void BiaxialPanel::draw(UiContext& ctx) {
    ctx.biaxialFrame.shown = false;
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.data.tables.empty()) {
        ImGui::TextWrapped("Open a file to plot two of its channels and draw gates.");
        return;
    }
    auto& settings = ctx.biaxial;
    const io::Table& first = st.data.tables.front();
    refreshPlot(ctx);
    ImGui::SetNextItemWidth(-20);
    channelCombo("x", first, settings.x);
    ImGui::SetNextItemWidth(-20);
    channelCombo("y", first, settings.y);
    if (!refreshPlot(ctx)) {
        ImGui::TextWrapped("%s", m_error.c_str());
        return;
    }
    int colour = settings.byPopulation ? 1 : 0;
    ImGui::RadioButton("density", &colour, 0);
    ImGui::SameLine();
    ImGui::RadioButton("populations", &colour, 1);
    settings.byPopulation = colour == 1;
    int tool = settings.polygon ? 1 : 0;
    ImGui::RadioButton("rectangle", &tool, 0);
    ImGui::SameLine();
    ImGui::RadioButton("polygon", &tool, 1);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Click the vertices; click the first one again to close the gate. "
            "Right-click drops it.");
    settings.polygon = tool == 1;
    ImGui::SetNextItemWidth(-60);
    ImGui::InputText("gate name", &settings.gateName);

    const float size = std::clamp(ImGui::GetContentRegionAvail().x, 120.0f, 480.0f);
    const int pixels = int(size);
    const std::string pictureKey = m_plotKey + "|" + std::to_string(st.version(app::Part::Gates)) +
                                   "|" + std::to_string(st.version(app::Part::Populations)) + "|" +
                                   std::to_string(colour) + "|" + std::to_string(pixels);
    if (pictureKey != m_pictureKey) {
        m_pictureKey = pictureKey;
        const auto rgba = app::biaxialPicture(
            m_plot, pixels, pixels,
            settings.byPopulation ? app::BiaxialColour::Population : app::BiaxialColour::Density,
            st.populations, st.gating);
        m_texture.upload(rgba.data(), pixels, pixels);
    }
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Image(ImTextureID(intptr_t(m_texture.id())), ImVec2(size, size));
    // The image is the item the mouse acts on: clicks on it draw gates, not drag the window.
    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton("plot", ImVec2(size, size));
    drawGates(ctx, origin.x, origin.y, size);
    ctx.biaxialFrame = {true, origin.x, origin.y, size, size, m_plot.low, m_plot.high};
    ImGui::TextDisabled("x %.1f..%.1f %s", m_plot.low[0], m_plot.high[0],
                        scaleName(m_plot.axes.steps[0].transform).c_str());
    ImGui::TextDisabled("y %.1f..%.1f %s", m_plot.low[1], m_plot.high[1],
                        scaleName(m_plot.axes.steps[1].transform).c_str());

    // The gates: every one applies (a cell must be inside all of them).
    const auto& gates = st.gating.gates;
    if (gates.empty()) {
        ImGui::TextWrapped("Drag on the plot to gate the cells to keep (live, singlets).");
        return;
    }
    ImGui::Text("%zu of %zu cells in the gates", st.gating.count(st.data.events()),
                st.data.events());
    for (size_t i = 0; i < gates.size(); ++i) {
        ImGui::PushID(int(i));
        if (ImGui::SmallButton("x")) {
            std::vector<Gate> rest = gates;
            const std::string name = rest[i].name;
            rest.erase(rest.begin() + long(i));
            ws.gates().set(std::move(rest), "Delete gate " + name);
            ImGui::PopID();
            break;
        }
        ImGui::SameLine();
        const std::string label = gates[i].name + ": " + gates[i].axes.steps[0].name + " vs " +
                                  gates[i].axes.steps[1].name;
        if (ImGui::Selectable(label.c_str(), false)) {
            settings.x = gates[i].axes.steps[0].name;
            settings.y = gates[i].axes.steps[1].name;
        }
        ImGui::PopID();
    }
}

}  // namespace sepal::ui
