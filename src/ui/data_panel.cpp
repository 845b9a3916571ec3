#include "ui/data_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <optional>
#include <string>

#include "core/pipeline/prepare.h"
#include "core/transform/arcsinh.h"
#include "core/transform/logicle.h"

namespace sepal::ui {

namespace {
using Kind = ColumnTransform::Kind;

const char* kKinds[] = {"arcsinh", "logicle", "none"};
const Kind kKindOf[] = {Kind::Arcsinh, Kind::Logicle, Kind::None};

int kindIndex(Kind k) {
    for (int i = 0; i < 3; ++i)
        if (kKindOf[i] == k) return i;
    return 2;
}

bool containsNoCase(const std::string& text, const char* needle) {
    std::string a = text, b = needle;
    auto lower = [](std::string& s) {
        for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    };
    lower(a), lower(b);
    return a.find(b) != std::string::npos;
}

// The step of channel `name` in the pipeline, or nullptr.
ColumnStep* stepOf(TransformPipeline& p, const std::string& name) {
    for (auto& s : p.steps)
        if (s.name == name) return &s;
    return nullptr;
}

// Puts a step for channel `c` in the pipeline, in the table's channel order.
void addStep(TransformPipeline& p, const io::Table& table, size_t c, const ColumnTransform& t) {
    ColumnStep step;
    step.name = table.channels[c].name;
    step.transform = t;
    auto at = std::find_if(p.steps.begin(), p.steps.end(),
                           [&](const ColumnStep& s) { return table.findChannel(s.name) > int(c); });
    p.steps.insert(at, step);
}

// Values of channel c after the transform `t`, for the histogram (strided, finite only).
std::vector<float> transformedSample(const io::Table& table, size_t c, const ColumnTransform& t) {
    std::optional<Logicle> logicle;
    if (t.kind == Kind::Logicle) logicle.emplace(t.logicle);
    std::vector<float> values;
    const size_t stride = std::max<size_t>(1, table.events() / 20000);
    for (size_t i = 0; i < table.events(); i += stride) {
        const double v = table.values.at(i, c);
        const double y = t.kind == Kind::Arcsinh  ? arcsinh(v / t.cofactor)
                         : t.kind == Kind::Linear ? v * t.scale + t.offset
                         : logicle                ? logicle->scale(v)
                                                  : v;
        if (std::isfinite(y)) values.push_back(float(y));
    }
    return values;
}
}  // namespace

void DataPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.data.tables.empty()) {
        ImGui::TextDisabled("No data open.");
        return;
    }
    const io::Table& table = st.data.tables.front();
    // Roles and classes read every channel's name (and roles its values): once a change.
    if (m_rolesFor != st.data.version || m_classesFrom != st.training.markerClasses) {
        m_roles = channelRoles(table);
        m_classes = markerClasses(table, overridesOf(table, st.training.markerClasses));
        m_rolesFor = st.data.version;
        m_classesFrom = st.training.markerClasses;
    }
    ImGui::TextWrapped("%zu sample%s, %zu events, %zu of %zu channels used", st.data.samples.size(),
                       st.data.samples.size() == 1 ? "" : "s", st.data.events(),
                       st.data.columns.size(), table.channels.size());
    TransformPipeline p = st.pipeline;
    bool changed = false;

    // One transform for every used channel (the usual choice); per-channel cofactors below.
    ColumnTransform common = p.steps.empty() ? ColumnTransform{} : p.steps.front().transform;
    int kind = kindIndex(common.kind);
    ImGui::SetNextItemWidth(100);
    if (ImGui::Combo("##kind", &kind, kKinds, 3)) {
        for (auto& s : p.steps) s.transform.kind = kKindOf[kind];
        changed = true;
    }
    if (kKindOf[kind] == Kind::Arcsinh) {
        ImGui::SameLine();
        float cofactor = float(common.cofactor);
        ImGui::SetNextItemWidth(-1);
        if (ImGui::InputFloat("##cofactor", &cofactor, 0, 0, "cofactor %.4g",
                              ImGuiInputTextFlags_EnterReturnsTrue) &&
            cofactor > 0) {
            for (auto& s : p.steps) s.transform.cofactor = cofactor;
            changed = true;
        }
    }

    // Compensation: the file's own matrix, one loaded from a file, or none.
    using Source = CompensationStep::Source;
    const bool fileHasMatrix = table.spillover.has_value() && !table.spillover->channels.empty();
    const bool stored = p.compensation.source == Source::Stored;
    bool compensate = p.compensation.source != Source::None;
    ImGui::BeginDisabled(!fileHasMatrix && !stored);
    std::string label =
        stored ? "Compensate (loaded matrix, " +
                     std::to_string(p.compensation.spillover.channels.size()) + " channels)"
        : fileHasMatrix ? "Compensate (file's matrix, " +
                              std::to_string(table.spillover->channels.size()) + " channels)"
                        : std::string("Compensate (no matrix in the file)");
    if (ImGui::Checkbox(label.c_str(), &compensate)) {
        p.compensation.source =
            compensate ? (stored ? Source::Stored : Source::File) : Source::None;
        if (!compensate && stored) p.compensation.spillover = {};
        changed = true;
    }
    ImGui::EndDisabled();
    ImGui::SetNextItemWidth(-60);
    ImGui::InputTextWithHint("##spill", "spillover matrix file (.csv)", m_spillover,
                             sizeof m_spillover);
    ImGui::SameLine();
    if (ImGui::Button("Load") && m_spillover[0]) ws.data().loadSpillover(m_spillover);

    // Every channel, with why it is left out by default; a filter box for large panels.
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##filter", "filter channels", m_filter, sizeof m_filter);
    const auto names = st.data.channelNames();
    if (m_listHeight <= 0) m_listHeight = 14 * ImGui::GetTextLineHeightWithSpacing();
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV;
    if (ImGui::BeginTable("channels", 3, flags, ImVec2(0, m_listHeight))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("channel", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("class", ImGuiTableColumnFlags_WidthFixed, 80);
        ImGui::TableSetupColumn("cofactor", ImGuiTableColumnFlags_WidthFixed, 60);
        ImGui::TableHeadersRow();
        for (size_t c = 0; c < names.size(); ++c) {
            if (m_filter[0] && !containsNoCase(names[c], m_filter)) continue;
            ImGui::PushID(int(c));
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ColumnStep* step = stepOf(p, table.channels[c].name);
            bool use = step != nullptr;
            if (ImGui::Checkbox(names[c].c_str(), &use)) {
                if (use)
                    addStep(p, table, c, common);
                else
                    p.steps.erase(p.steps.begin() + (step - p.steps.data()));
                step = nullptr;
                changed = true;
            }
            if (ImGui::IsItemHovered()) m_preview = int(c);
            ImGui::TableNextColumn();
            const ChannelRole role = c < m_roles.size() ? m_roles[c] : ChannelRole::Marker;
            if (role == ChannelRole::Marker) {
                // A marker's class: type (lineage) markers name populations, state ones do not.
                const MarkerClass now = c < m_classes.size() ? m_classes[c] : MarkerClass::Type;
                int index = now == MarkerClass::Type ? 0 : now == MarkerClass::State ? 1 : 2;
                const char* classes[] = {"type", "state", "none"};
                ImGui::SetNextItemWidth(-1);
                if (ImGui::Combo("##class", &index, classes, 3)) {
                    app::TrainingSettings t = st.training;
                    t.markerClasses[table.channels[c].name] = MarkerClass(index);
                    ws.training().setSettings(t);
                    ws.edits().seal();
                }
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip(
                        "type: a lineage marker (what a cell is), which names populations; "
                        "state: a function marker (what it is doing), for colour, heatmap and "
                        "statistics; none: not a marker");
            } else {
                ImGui::TextDisabled("%s", roleLabel(role).c_str());
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip("Left out by default: %s", roleReason(role));
            }
            ImGui::TableNextColumn();
            if (step && step->transform.kind == Kind::Arcsinh) {
                float cofactor = float(step->transform.cofactor);
                ImGui::SetNextItemWidth(-1);
                if (ImGui::InputFloat("##c", &cofactor, 0, 0, "%.4g",
                                      ImGuiInputTextFlags_EnterReturnsTrue) &&
                    cofactor > 0) {
                    step->transform.cofactor = cofactor;
                    changed = true;
                    m_preview = int(c);
                }
            }
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    // The list's lower edge: drag it to show more or fewer channels.
    ImGui::InvisibleButton("##resize", ImVec2(-1, 6));
    if (ImGui::IsItemActive())
        m_listHeight = std::max(4 * ImGui::GetTextLineHeightWithSpacing(),
                                m_listHeight + ImGui::GetIO().MouseDelta.y);
    if (ImGui::IsItemHovered() || ImGui::IsItemActive())
        ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeNS);
    // The type markers are what landmarks should separate (the default on opening a file);
    // every marker puts what the cells are doing into the picture too.
    const auto usePreset = [&](const TransformPipeline& preset) {
        p.steps.clear();
        for (const auto& s : preset.steps)
            addStep(p, table, size_t(table.findChannel(s.name)), common);
        changed = true;
    };
    if (ImGui::Button("Type markers")) {
        PrepareOptions options;
        options.markerClasses = overridesOf(table, st.training.markerClasses);
        usePreset(choosePipeline(table, options));
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Embed the lineage markers (class type); the state markers stay for "
            "colour, the heatmap and the medians");
    ImGui::SameLine();
    if (ImGui::Button("All markers")) usePreset(TransformPipeline::defaultFor(table));
    ImGui::SameLine();
    if (ImGui::Button("All channels")) {
        for (size_t c = 0; c < table.channels.size(); ++c)
            if (!stepOf(p, table.channels[c].name)) addStep(p, table, c, common);
        changed = true;
    }

    // Histogram of the previewed channel after its transform (first sample, strided).
    const size_t c = size_t(std::clamp(m_preview, 0, int(table.channels.size()) - 1));
    const ColumnStep* step = stepOf(p, table.channels[c].name);
    // Time in its own units: its ticks in seconds by the file's $TIMESTEP.
    const double timestep = table.channels[c].timestep;
    const bool inSeconds = timestep != 1 && !step;
    const ColumnTransform t = step ? step->transform : inSeconds ? ColumnTransform{} : common;
    const std::vector<float> values = transformedSample(table, c, t);
    if (!values.empty()) {
        auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        float a = *lo, b = std::max(*hi, *lo + 1e-6f);
        float hist[64] = {};
        for (float v : values) hist[std::clamp(int((v - a) / (b - a) * 64), 0, 63)] += 1;
        if (inSeconds)
            ImGui::TextDisabled("%s  [%.4g, %.4g] s", names[c].c_str(), a * timestep, b * timestep);
        else
            ImGui::TextDisabled("%s  [%.3g, %.3g]", names[c].c_str(), a, b);
        if (inSeconds && ImGui::IsItemHovered())
            ImGui::SetTooltip("stored in ticks of %g s ($TIMESTEP); exports keep the ticks",
                              timestep);
        ImGui::PlotHistogram("##hist", hist, 64, 0, nullptr, 0, FLT_MAX,
                             ImVec2(ImGui::GetContentRegionAvail().x, 60));
    }
    if (changed) ws.data().setPipeline(p), ws.edits().seal();
}

}  // namespace sepal::ui
