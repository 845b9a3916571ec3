#include "ui/counts_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/common/text.h"
#include "core/gate/gate_membership.h"
#include "ui/fitted_text.h"

namespace sepal::ui {
namespace {

// A grid of rows x samples under the heading `corner`; cell(i, s) is row i's value in sample s
// ("" for none: a dash), right-aligned so that the digits line up. The rows' names take at most
// 40% of the width (whole in their tooltips); each sample's column is as wide as what tells it
// from the others (whole in the header's tooltip) or its numbers.
template <class Cell>
void drawGrid(const char* id, const char* corner, const std::vector<std::string>& rows,
              const std::vector<std::string>& samples, Cell cell) {
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
    const float height =
        std::min(ImGui::GetTextLineHeightWithSpacing() * float(rows.size() + 2) + 8.0f,
                 ImGui::GetTextLineHeightWithSpacing() * 16.0f);
    if (!ImGui::BeginTable(id, int(samples.size()) + 1, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn(corner, ImGuiTableColumnFlags_WidthFixed,
                            ImGui::GetContentRegionAvail().x * 0.4f);
    // The values first, so that a column is as wide as its widest one.
    std::vector<std::vector<std::string>> values(samples.size());
    for (size_t s = 0; s < samples.size(); ++s)
        for (size_t i = 0; i < rows.size(); ++i) values[s].push_back(cell(i, s));
    const std::vector<std::string> shortNames = distinguishingNames(samples);
    for (size_t s = 0; s < samples.size(); ++s) {
        float width =
            std::max(ImGui::CalcTextSize(shortNames[s].c_str()).x, ImGui::CalcTextSize("-").x);
        for (const std::string& v : values[s])
            width = std::max(width, ImGui::CalcTextSize(v.c_str()).x);
        ImGui::TableSetupColumn(shortNames[s].c_str(), ImGuiTableColumnFlags_WidthFixed, width);
    }
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (size_t c = 0; c <= samples.size(); ++c) {
        ImGui::TableSetColumnIndex(int(c));
        ImGui::TableHeader(c == 0 ? corner : shortNames[c - 1].c_str());
        if (c > 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", samples[c - 1].c_str());
    }
    std::vector<std::string> fitted;  // the rows' names in the first column's width
    for (size_t i = 0; i < rows.size(); ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (i == 0) fitted = fittedNames(rows, ImGui::GetContentRegionAvail().x);
        ImGui::TextUnformatted(fitted[i].c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", rows[i].c_str());
        for (size_t s = 0; s < samples.size(); ++s) {
            ImGui::TableNextColumn();
            const std::string& v = values[s][i];
            const char* text = v.empty() ? "-" : v.c_str();
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x -
                                 ImGui::CalcTextSize(text).x);
            if (v.empty())
                ImGui::TextDisabled("-");
            else
                ImGui::TextUnformatted(text);
        }
    }
    ImGui::EndTable();
}

/// A count as the grid shows it.
std::string countText(unsigned long long events) {
    return std::to_string(events);
}

/// A percentage as the grid shows it, two decimals.
std::string percentText(double percent) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", percent);
    return text;
}

}  // namespace

void CountsPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    const bool gates = !st.gating.gates.empty();
    if (st.populations.groups.empty() && !gates) {
        ImGui::TextWrapped(
            "No populations or gates yet: Populations > From landmarks, the lasso, or a gate "
            "drawn on a Biaxial plot.");
        return;
    }
    // Counted again when the cells, their populations or the gates change (not on every drag).
    const uint64_t key = st.version(app::Part::Data) * 1000003 +
                         st.version(app::Part::Populations) * 7919 + st.version(app::Part::Gates);
    if (m_counter != key) {
        m_rows = st.populations.groups.empty() ? std::vector<PopulationCount>{}
                                               : ws.populations().counts();
        m_counter = key;
    }
    ImGui::RadioButton("%", &m_percent, 1);
    ImGui::SameLine();
    ImGui::RadioButton("cells", &m_percent, 0);
    // The gates' counts per sample are made with the gating (one pass over the cells).
    const auto& gateRows = st.gating.bySample;
    if (!gateRows.empty()) {
        // Each sample holds every population of the one tree, in one order.
        std::vector<std::string> samples, paths;
        for (const auto& s : gateRows) samples.push_back(s.sample);
        for (const GateCount& c : gateRows.front().counts) paths.push_back(c.path);
        drawGrid("gate counts", m_percent ? "gate (% of parent)" : "gate (events)", paths, samples,
                 [&](size_t i, size_t s) {
                     const GateCount& c = gateRows[s].counts[i];
                     return !m_percent            ? countText(c.events)
                            : c.parentEvents == 0 ? std::string()
                                                  : percentText(c.percentOfParent());
                 });
    }
    // The rows come sample by sample (two samples may share a name), each with every
    // population in one order.
    const size_t sampleCount = st.data.samples.size();
    if (sampleCount > 0 && !m_rows.empty() && m_rows.size() % sampleCount == 0) {
        const size_t p = m_rows.size() / sampleCount;
        std::vector<std::string> samples, populations;
        for (size_t s = 0; s < sampleCount; ++s) samples.push_back(m_rows[s * p].sample);
        for (size_t i = 0; i < p; ++i) populations.push_back(m_rows[i].population);
        drawGrid("counts", m_percent ? "population (% of sample)" : "population (cells)",
                 populations, samples, [&](size_t i, size_t s) {
                     const auto& r = m_rows[s * p + i];
                     return !m_percent                  ? countText(r.cells)
                            : std::isfinite(r.fraction) ? percentText(100.0 * r.fraction)
                                                        : std::string();
                 });
    }
    ImGui::TextDisabled(gates && m_rows.empty() ? "Export > Counts: gate_counts.csv"
                        : gates ? "Export > Counts: gate_counts.csv, populations.csv, medians.csv"
                                : "Export > Counts: populations.csv, medians.csv");
}

}  // namespace sepal::ui
