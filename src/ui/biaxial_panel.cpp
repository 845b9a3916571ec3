#include "ui/biaxial_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "core/transform/channel_label.h"
#include "core/transform/channel_roles.h"
#include "ui/fitted_text.h"

namespace sepal::ui {

namespace {

constexpr float kLeftMargin = 64, kBottomMargin = 44, kTopMargin = 20, kRightMargin = 10;
constexpr double kPi = 3.14159265358979323846;

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

/// A value field of the axis dialog; true when edited.
bool parameter(const char* label, double& v, const char* help) {
    ImGui::SetNextItemWidth(110);
    const bool changed =
        ImGui::InputDouble(label, &v, 0, 0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
    return changed;
}

/// The axis dialog (as FlowJo's): the transform of one axis and its parameters. The scale
/// changes only when its parameters are valid. True when it changed.
bool scaleEditor(const char* id, GateScale& scale) {
    bool changed = false;
    ImGui::PushID(id);
    // The button names the transform ("logicle"); its parameters are in the tooltip and under
    // the plot (the whole label ran past the window's edge).
    const std::string label = app::scaleLabel(scale);
    if (ImGui::SmallButton((label.substr(0, label.find(' ')) + "##scale").c_str()))
        ImGui::OpenPopup("scale");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s: the transform of this axis (click to change)", label.c_str());
    if (ImGui::BeginPopup("scale")) {
        static const std::pair<const char*, GateScale::Kind> kinds[] = {
            {"linear", GateScale::Kind::None},     {"arcsinh", GateScale::Kind::Asinh},
            {"logicle", GateScale::Kind::Logicle}, {"biex (FlowJo)", GateScale::Kind::Biex},
            {"log", GateScale::Kind::Log},         {"hyperlog", GateScale::Kind::Hyperlog}};
        GateScale next = scale;
        for (const auto& [name, kind] : kinds)
            if (ImGui::RadioButton(name, next.kind == kind) && next.kind != kind) {
                next = kind == GateScale::Kind::Asinh ? app::arcsinhScale(5.0) : GateScale{};
                next.kind = kind;
                if (kind == GateScale::Kind::Log) next.M = 5;
                if (kind == GateScale::Kind::Biex) next.length = 4096;
            }
        ImGui::Separator();
        switch (next.kind) {
            case GateScale::Kind::Asinh: {
                double cofactor = next.T / std::sinh(next.M * std::log(10.0));
                if (parameter("cofactor", cofactor,
                              "x / cofactor goes through asinh (5 for mass, 150 for flow)") &&
                    cofactor > 0)
                    next = app::arcsinhScale(cofactor);
                break;
            }
            case GateScale::Kind::Logicle:
            case GateScale::Kind::Hyperlog:
                parameter("T", next.T, "top of scale (data units)");
                parameter("W", next.W, "linear width in decades");
                parameter("M", next.M, "decades of the whole scale");
                parameter("A", next.A, "extra negative decades");
                break;
            case GateScale::Kind::Log:
                parameter("T", next.T, "top of scale (data units)");
                parameter("M", next.M, "decades shown");
                break;
            case GateScale::Kind::Biex:
                parameter("max range", next.maxRange, "top of scale (data units)");
                parameter("pos", next.pos, "positive decades");
                parameter("neg", next.neg, "negative decades");
                parameter("width", next.width, "width basis (negative, FlowJo's -10 to -1000)");
                break;
            default:
                break;
        }
        if (!(next == scale)) {
            try {
                validateScale(next, "axis");
                scale = next;
                changed = true;
            } catch (const std::exception& e) {
                ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", e.what());
            }
        }
        ImGui::EndPopup();
    }
    ImGui::PopID();
    return changed;
}

/// A combo of the tree's populations (and every cell); true when `id` changed.
bool populationCombo(const char* label, const app::Gating& gating, std::string& id) {
    std::string shown = "all cells";
    const auto populations = gating.gates.tree.populations();
    for (const GatePopulation& p : populations)
        if (p.id == id) shown = p.path;
    bool changed = false;
    if (ImGui::BeginCombo(label, shown.c_str())) {
        if (ImGui::Selectable("all cells", id.empty())) id.clear(), changed = true;
        for (const GatePopulation& p : populations)
            if (ImGui::Selectable(p.path.c_str(), p.id == id)) id = p.id, changed = true;
        ImGui::EndCombo();
    }
    return changed;
}

/// What a channel is called on an axis and in quadrant names: its marker, else its name.
std::string shortLabel(const io::Table& table, const std::string& channel) {
    const int c = table.findChannel(channel);
    if (c < 0) return channel;
    const io::Channel& ch = table.channels[size_t(c)];
    return ch.marker.empty() ? ch.name : ch.marker;
}

/// Whether two boxes (min x, min y, max x, max y) overlap.
bool overlaps(const ImVec4& a, const ImVec4& b) {
    return a.x < b.z && b.x < a.z && a.y < b.w && b.y < a.w;
}

/// Draws a gate's label, "name 24.8%", its name cut to the width of the gate's part on the plot
/// (the share stays whole), on its anchor's side, inside the plot (`plot`: its box on screen)
/// and moved off the labels `drawn` before where it can be; returns its box.
template <class ToScreen>
ImVec4 drawGateLabel(ImDrawList* draw, const app::GateOutline& o, const ToScreen& toScreen,
                     const ImVec4& plot, const std::vector<ImVec4>& drawn, ImU32 colour) {
    const ImVec2 a = toScreen(o.room[0], o.room[1]), b = toScreen(o.room[2], o.room[3]);
    const float room = std::max(std::abs(b.x - a.x) - 8.0f, 60.0f);
    // Where the gate leaves too little room, its note goes first, then the name is shortened.
    std::string tail = (o.share.empty() ? "" : " " + o.share) + o.note;
    std::string text = o.name + tail;
    if (ImGui::CalcTextSize(text.c_str()).x > room && !o.note.empty()) {
        tail = o.share.empty() ? "" : " " + o.share;
        text = o.name + tail;
    }
    if (ImGui::CalcTextSize(text.c_str()).x > room) {
        const float tailWidth = ImGui::CalcTextSize(tail.c_str()).x;
        text = tailWidth + 30 < room ? fittedText(o.name, room - tailWidth) + tail
               : o.share.empty()     ? fittedText(o.name, room)
                                     : o.share;
    }
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at = toScreen(o.anchor[0], o.anchor[1]);
    constexpr float kPad = 4;
    // side: -1 before the anchor (left; below, which is down on screen), 1 after it.
    const float x = o.side[0] < 0   ? at.x - kPad - size.x
                    : o.side[0] > 0 ? at.x + kPad
                                    : at.x - size.x / 2;
    const float y = o.side[1] < 0   ? at.y + kPad
                    : o.side[1] > 0 ? at.y - kPad - size.y
                                    : at.y - size.y / 2;
    const auto boxAt = [&](float dy) {
        const float bx = std::clamp(x, plot.x + 2, std::max(plot.x + 2, plot.z - size.x - 2));
        const float by = std::clamp(y + dy, plot.y + 2, std::max(plot.y + 2, plot.w - size.y - 2));
        return ImVec4(bx, by, bx + size.x, by + size.y);
    };
    ImVec4 box = boxAt(0);
    for (int step : {1, -1, 2, -2, 3, -3}) {
        if (std::none_of(drawn.begin(), drawn.end(),
                         [&](const ImVec4& d) { return overlaps(d, box); }))
            break;
        box = boxAt(float(step) * (size.y + 3));
    }
    if (std::any_of(drawn.begin(), drawn.end(), [&](const ImVec4& d) { return overlaps(d, box); }))
        box = boxAt(0);
    draw->AddRectFilled(ImVec2(box.x - 3, box.y - 1), ImVec2(box.z + 3, box.w + 1),
                        IM_COL32(0, 0, 0, 170), 3);
    draw->AddText(ImVec2(box.x, box.y), colour, text.c_str());
    return ImVec4(box.x - 3, box.y - 1, box.z + 3, box.w + 1);
}

}  // namespace

void BiaxialPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.data.tables.empty()) {
        ImGui::TextWrapped("Open a file to plot two of its channels and draw gates.");
        return;
    }
    ctx.firstPlot();
    for (size_t i = 0; i < ctx.plots.size(); ++i) {
        BiaxialSettings& s = ctx.plots[i];
        ImGui::PushID(int(i));
        std::string parent = "all cells";
        for (const GatePopulation& p : st.gating.gates.tree.populations())
            if (p.id == s.parent) parent = p.path;
        const std::string label =
            "Biaxial " + std::to_string(i + 1) + ": " + s.x + " vs " + s.y + " on " + parent;
        ImGui::Checkbox(label.c_str(), &s.open);
        ImGui::PopID();
    }
    if (ImGui::Button("New plot")) {
        BiaxialSettings s;
        // The cells of the population selected in the Gates window, the next step of a strategy.
        s.parent = ctx.selectedGate.empty() ? st.gating.gates.population : ctx.selectedGate;
        s.gateName = "gate";
        ctx.plots.push_back(s);
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("a new plot of the population selected in the Gates window");
    bool retrain = ws.gates().retrainOnChange();
    if (ImGui::Checkbox("Re-train on the gated cells", &retrain))
        ws.gates().setRetrainOnChange(retrain);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "when a gate is drawn or the embedded population changes, train the landmarks "
            "on its cells (progress and Cancel in Training; one Undo returns both)");
}

void BiaxialPanel::drawWindows(UiContext& ctx) {
    ctx.biaxialFrame.shown = false;
    if (ctx.workspace.state().data.tables.empty()) return;
    while (m_views.size() < ctx.plots.size()) m_views.emplace_back();
    for (size_t i = 0; i < ctx.plots.size(); ++i)
        if (ctx.plots[i].open) drawPlot(ctx, i);
}

bool BiaxialPanel::refreshPlot(UiContext& ctx, BiaxialSettings& s, PlotView& view) {
    const auto& st = ctx.workspace.state();
    const io::Table& first = st.data.tables.front();
    if (s.x.empty() || s.y.empty()) std::tie(s.x, s.y) = firstAxes(first);
    if (!s.parent.empty() && !st.gating.cellsOf(s.parent)) s.parent.clear();  // its gate went
    if (!s.scalesChosen) {
        s.xScale = app::startingAxisScale(st.data, st.gating, s.parent, s.x);
        s.yScale = app::startingAxisScale(st.data, st.gating, s.parent, s.y);
    }
    const bool compensate = st.pipeline.compensation.source == CompensationStep::Source::File;
    const std::string key = std::to_string(st.version(app::Part::Data)) + "|" +
                            std::to_string(st.version(app::Part::Gates)) + "|" + s.x + "|" + s.y +
                            "|" + app::scaleLabel(s.xScale) + "|" + app::scaleLabel(s.yScale) +
                            "|" + s.parent + "|" + std::to_string(compensate);
    if (key == view.plotKey) return view.error.empty();
    view.plotKey = key;
    view.pictureKey.clear();
    view.drawing.clear();
    try {
        const std::array<GateDimension, 2> axes = {
            app::biaxialAxis(st.data, s.x, s.xScale, compensate),
            app::biaxialAxis(st.data, s.y, s.yScale, compensate)};
        view.plot = app::biaxialOf(st.data, st.gating, axes, s.parent);
        view.error.clear();
    } catch (const std::exception& e) {
        view.error = e.what();
    }
    return view.error.empty();
}

void BiaxialPanel::drawControls(UiContext& ctx, BiaxialSettings& s) {
    const auto& st = ctx.workspace.state();
    const io::Table& first = st.data.tables.front();
    // Each axis a line of its own: the channel as wide as the scale's button leaves, so that
    // "Cisplatin (Pt195Di)" reads whole in the side bar.
    const float avail = ImGui::GetContentRegionAvail().x;
    const float channelWidth = std::max(80.0f, avail - 130.0f);
    ImGui::SetNextItemWidth(channelWidth);
    channelCombo("x", first, s.x);  // a scale not chosen follows (refreshPlot)
    ImGui::SameLine();
    if (scaleEditor("xscale", s.xScale)) s.scalesChosen = true;
    ImGui::SetNextItemWidth(channelWidth);
    channelCombo("y", first, s.y);
    ImGui::SameLine();
    if (scaleEditor("yscale", s.yScale)) s.scalesChosen = true;
    ImGui::SetNextItemWidth(std::max(80.0f, avail - 100.0f));
    populationCombo("cells shown", st.gating, s.parent);
    int colour = s.byPopulation ? 1 : 0;
    ImGui::RadioButton("density", &colour, 0);
    ImGui::SameLine();
    ImGui::RadioButton("populations", &colour, 1);
    s.byPopulation = colour == 1;
    static const std::pair<const char*, GateTool> tools[] = {{"rectangle", GateTool::Rectangle},
                                                             {"range", GateTool::Range},
                                                             {"polygon", GateTool::Polygon},
                                                             {"ellipse", GateTool::Ellipse},
                                                             {"quadrant", GateTool::Quadrant}};
    for (const auto& [name, tool] : tools) {
        if (ImGui::RadioButton(name, s.tool == tool)) s.tool = tool;
        ImGui::SameLine();
    }
    ImGui::NewLine();
    ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - 90.0f));
    ImGui::InputText("gate name", &s.gateName);
    ImGui::Checkbox("fill the canvas", &s.fillCanvas);
}

void BiaxialPanel::addGate(UiContext& ctx, const BiaxialSettings& s, const PlotView& view,
                           GateNode gate) {
    gate.parent = view.plot.parent;
    const char* fallback = gate.kind == GateNode::Kind::Quadrant ? "quadrants" : "gate";
    gate.name = s.gateName.empty() ? fallback : s.gateName;
    ctx.workspace.gates().add(std::move(gate));
}

void BiaxialPanel::drawPlotArea(UiContext& ctx, BiaxialSettings& s, PlotView& view, float ox,
                                float oy, float w, float h, bool first) {
    const auto& st = ctx.workspace.state();
    const app::BiaxialPlot& plot = view.plot;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const auto sx = [&](float v) {
        return ox + (v - plot.low[0]) / (plot.high[0] - plot.low[0]) * w;
    };
    const auto sy = [&](float v) {
        return oy + (1 - (v - plot.low[1]) / (plot.high[1] - plot.low[1])) * h;
    };
    const auto toScreen = [&](float vx, float vy) { return ImVec2(sx(vx), sy(vy)); };
    const ImVec2 mouse = ImGui::GetMousePos();
    const float mx = plot.low[0] + (mouse.x - ox) / w * (plot.high[0] - plot.low[0]);
    const float my = plot.low[1] + (1 - (mouse.y - oy) / h) * (plot.high[1] - plot.low[1]);
    const ImU32 white = IM_COL32(235, 235, 235, 255), grey = IM_COL32(160, 160, 160, 255);

    // The axes: ticks in data units, labelled; the channels and scales as titles.
    const io::Table& table = st.data.tables.front();
    draw->AddRect(ImVec2(ox, oy), ImVec2(ox + w, oy + h), grey);
    for (const app::AxisTick& t : app::axisTicks(s.xScale, plot.low[0], plot.high[0])) {
        const float x = sx(t.at);
        draw->AddLine(ImVec2(x, oy + h), ImVec2(x, oy + h + (t.major ? 6.0f : 3.0f)), grey);
        if (!t.label.empty()) {
            const ImVec2 size = ImGui::CalcTextSize(t.label.c_str());
            draw->AddText(ImVec2(x - size.x / 2, oy + h + 7), white, t.label.c_str());
        }
    }
    for (const app::AxisTick& t : app::axisTicks(s.yScale, plot.low[1], plot.high[1])) {
        const float y = sy(t.at);
        draw->AddLine(ImVec2(ox - (t.major ? 6.0f : 3.0f), y), ImVec2(ox, y), grey);
        if (!t.label.empty()) {
            const ImVec2 size = ImGui::CalcTextSize(t.label.c_str());
            draw->AddText(ImVec2(ox - 8 - size.x, y - size.y / 2), white, t.label.c_str());
        }
    }
    const std::string xTitle =
        channelLabel(table.channels[size_t(std::max(0, table.findChannel(s.x)))]) + "  (" +
        app::scaleLabel(s.xScale) + ")";
    const ImVec2 xSize = ImGui::CalcTextSize(xTitle.c_str());
    draw->AddText(ImVec2(ox + (w - xSize.x) / 2, oy + h + 24), white, xTitle.c_str());
    const std::string yTitle =
        "y: " + channelLabel(table.channels[size_t(std::max(0, table.findChannel(s.y)))]) + "  (" +
        app::scaleLabel(s.yScale) + ")";
    draw->AddText(ImVec2(ox - kLeftMargin + 4, oy - kTopMargin + 2), white, yTitle.c_str());

    draw->PushClipRect(ImVec2(ox, oy), ImVec2(ox + w, oy + h), true);
    // The gates on these cells and channels, with their names and shares of the parent.
    std::vector<ImVec4> labelBoxes;  // min x, min y, max x, max y of the labels drawn
    for (const app::GateOutline& o : app::gateOutlines(plot, st.gating)) {
        std::vector<ImVec2> points;
        for (size_t i = 0; i + 1 < o.points.size(); i += 2)
            points.push_back(toScreen(o.points[i], o.points[i + 1]));
        const ImU32 colour =
            o.embedded ? IM_COL32(255, 150, 40, 255) : IM_COL32(120, 200, 255, 255);
        const bool selected = o.id == ctx.selectedGate;
        draw->AddPolyline(points.data(), int(points.size()), colour, ImDrawFlags_Closed,
                          o.embedded || selected ? 2.5f : 1.5f);
        labelBoxes.push_back(
            drawGateLabel(draw, o, toScreen, ImVec4(ox, oy, ox + w, oy + h), labelBoxes, colour));
    }
    // The gate being drawn.
    const bool hovered = ImGui::IsItemHovered();
    const ImU32 ink = IM_COL32(255, 255, 255, 230);
    const auto dimension = [&](size_t a) { return plot.axes[a]; };
    switch (s.tool) {
        case GateTool::Polygon: {
            if (hovered && ImGui::IsMouseClicked(0)) {
                // A click near the first vertex closes the polygon.
                const bool closes =
                    view.drawing.size() >= 6 &&
                    std::hypot(mouse.x - sx(view.drawing[0]), mouse.y - sy(view.drawing[1])) < 8;
                if (closes) {
                    GateNode g{GateNode::Kind::Polygon};
                    g.dimensions = {dimension(0), dimension(1)};
                    g.vertices.assign(view.drawing.begin(), view.drawing.end());
                    view.drawing.clear();
                    addGate(ctx, s, view, std::move(g));
                } else {
                    view.drawing.insert(view.drawing.end(), {mx, my});
                }
            }
            if (hovered && ImGui::IsMouseClicked(1)) view.drawing.clear();
            if (!view.drawing.empty()) {
                std::vector<ImVec2> points;
                for (size_t i = 0; i + 1 < view.drawing.size(); i += 2)
                    points.push_back(toScreen(view.drawing[i], view.drawing[i + 1]));
                points.push_back(mouse);
                draw->AddPolyline(points.data(), int(points.size()), ink, 0, 1.5f);
            }
            break;
        }
        case GateTool::Quadrant:
            if (hovered) {
                draw->AddLine(ImVec2(mouse.x, oy), ImVec2(mouse.x, oy + h),
                              IM_COL32(255, 255, 255, 120));
                draw->AddLine(ImVec2(ox, mouse.y), ImVec2(ox + w, mouse.y),
                              IM_COL32(255, 255, 255, 120));
            }
            if (hovered && ImGui::IsMouseClicked(0)) {
                GateNode g{GateNode::Kind::Quadrant};
                g.dividers = {{"x", dimension(0), {mx}}, {"y", dimension(1), {my}}};
                const std::string xl = shortLabel(table, s.x), yl = shortLabel(table, s.y);
                for (int q = 0; q < 4; ++q) {
                    const bool xp = q == 0 || q == 3, yp = q < 2;
                    const std::string name = xl + (xp ? "+ " : "- ") + yl + (yp ? "+" : "-");
                    g.quadrants.push_back(
                        {name, name, {xp ? mx + 1 : mx - 1, yp ? my + 1 : my - 1}});
                }
                addGate(ctx, s, view, std::move(g));
            }
            break;
        default: {
            if (hovered && ImGui::IsMouseClicked(0)) {
                view.dragging = true;
                view.dragStart[0] = mx, view.dragStart[1] = my;
            }
            if (!view.dragging) break;
            const ImVec2 a = toScreen(view.dragStart[0], view.dragStart[1]);
            const float rx = std::fabs(mx - view.dragStart[0]),
                        ry = std::fabs(my - view.dragStart[1]);
            if (s.tool == GateTool::Ellipse) {
                std::vector<ImVec2> points;
                for (int k = 0; k < 64; ++k) {
                    const double t = 2 * kPi * k / 64;
                    points.push_back(toScreen(view.dragStart[0] + rx * float(std::cos(t)),
                                              view.dragStart[1] + ry * float(std::sin(t))));
                }
                draw->AddPolyline(points.data(), int(points.size()), ink, ImDrawFlags_Closed, 1.5f);
            } else if (s.tool == GateTool::Range) {
                draw->AddRect(ImVec2(a.x, oy), ImVec2(mouse.x, oy + h), ink, 0, 0, 1.5f);
            } else {
                draw->AddRect(a, mouse, ink, 0, 0, 1.5f);
            }
            if (ImGui::IsMouseDown(0)) break;
            view.dragging = false;
            // A click without a drag is no gate.
            const bool wide = std::fabs(mouse.x - a.x) > 3, tall = std::fabs(mouse.y - a.y) > 3;
            if (!wide || (!tall && s.tool != GateTool::Range)) break;
            GateNode g{GateNode::Kind::Rectangle};
            if (s.tool == GateTool::Ellipse) {
                g.kind = GateNode::Kind::Ellipsoid;
                g.dimensions = {dimension(0), dimension(1)};
                g.mean = {view.dragStart[0], view.dragStart[1]};
                g.covariance = {double(rx) * rx, 0, 0, double(ry) * ry};
                g.distanceSquare = 1;
            } else {
                GateDimension x = dimension(0), y = dimension(1);
                x.min = std::min(view.dragStart[0], mx), x.max = std::max(view.dragStart[0], mx);
                y.min = std::min(view.dragStart[1], my), y.max = std::max(view.dragStart[1], my);
                g.dimensions = {x};
                if (s.tool == GateTool::Rectangle) g.dimensions.push_back(y);
            }
            addGate(ctx, s, view, std::move(g));
            break;
        }
    }
    draw->PopClipRect();
    if (hovered) {
        const double dx = ScaleFunction(s.xScale).inverse(mx),
                     dy = ScaleFunction(s.yScale).inverse(my);
        ImGui::SetTooltip("%s %.4g, %s %.4g", shortLabel(table, s.x).c_str(), dx,
                          shortLabel(table, s.y).c_str(), dy);
    }
    if (first) ctx.biaxialFrame = {true, ox, oy, w, h, plot.low, plot.high};
}

void BiaxialPanel::drawPlot(UiContext& ctx, size_t index) {
    const auto& st = ctx.workspace.state();
    BiaxialSettings& s = ctx.plots[index];
    PlotView& view = m_views[index];
    const auto& area = ctx.canvasArea;
    if (s.fillCanvas) {
        ImGui::SetNextWindowPos(ImVec2(area[0], area[1]), ImGuiCond_Always);
        ImGui::SetNextWindowSize(ImVec2(area[2], area[3]), ImGuiCond_Always);
    } else {
        // Side by side as a gating strategy reads: three across the window (over the side
        // bars), then a row a little lower.
        const float full = ImGui::GetMainViewport()->Size.x;
        const float width = std::clamp((full - 48) / 3, 360.0f, 620.0f);
        const float height = std::min(std::max(width + 150, 480.0f), area[3] - 24);
        const float step = 24.0f * float(index / 3);
        const float x = 12 + float(index % 3) * (width + 12) + step;
        ImGui::SetNextWindowPos(ImVec2(x, area[1] + 12 + step), ImGuiCond_FirstUseEver);
        ImGui::SetNextWindowSize(ImVec2(width, height), ImGuiCond_FirstUseEver);
    }
    const std::string title =
        "Biaxial " + std::to_string(index + 1) + "###biaxial" + std::to_string(index);
    if (!ImGui::Begin(title.c_str(), &s.open, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    drawControls(ctx, s);
    if (!refreshPlot(ctx, s, view)) {
        ImGui::TextWrapped("%s", view.error.c_str());
        ImGui::End();
        return;
    }
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float footer = ImGui::GetTextLineHeightWithSpacing();
    const float w = std::max(120.0f, avail.x - kLeftMargin - kRightMargin);
    const float h = std::max(120.0f, avail.y - kTopMargin - kBottomMargin - footer);
    const ImVec2 corner = ImGui::GetCursorScreenPos();
    const ImVec2 origin(corner.x + kLeftMargin, corner.y + kTopMargin);
    const int pw = int(w), ph = int(h);
    const std::string pictureKey =
        view.plotKey + "|" + std::to_string(st.version(app::Part::Gates)) + "|" +
        std::to_string(st.version(app::Part::Populations)) + "|" + std::to_string(s.byPopulation) +
        "|" + std::to_string(pw) + "x" + std::to_string(ph);
    if (pictureKey != view.pictureKey) {
        view.pictureKey = pictureKey;
        const auto rgba = app::biaxialPicture(
            view.plot, pw, ph,
            s.byPopulation ? app::BiaxialColour::Population : app::BiaxialColour::Density,
            st.populations, st.gating);
        view.texture.upload(rgba.data(), pw, ph);
    }
    ImGui::SetCursorScreenPos(origin);
    ImGui::Image(ImTextureID(intptr_t(view.texture.id())), ImVec2(w, h));
    // The image is the item the mouse acts on: clicks on it draw gates, not drag the window.
    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton("plot", ImVec2(w, h));
    drawPlotArea(ctx, s, view, origin.x, origin.y, w, h, index == 0);
    ImGui::SetCursorScreenPos(ImVec2(corner.x, origin.y + h + kBottomMargin));
    std::string shownOf = "all cells";
    for (const GatePopulation& p : st.gating.gates.tree.populations())
        if (p.id == view.plot.parent) shownOf = p.path;
    ImGui::TextDisabled("%zu cells of %s", view.plot.shown, shownOf.c_str());
    ImGui::End();
}

}  // namespace sepal::ui
