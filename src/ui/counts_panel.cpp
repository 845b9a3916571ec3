#include "ui/counts_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/common/text.h"
#include "core/gate/gate_membership.h"
#include "ui/fitted_text.h"

namespace sepal::ui {
namespace {

// What tells the samples apart: their names without the words all of them begin or end with
// ("Gates_PTLG021_Unstim" and "Gates_PTLG028_Unstim" read "PTLG021" and "PTLG028": a cut inside
// a word would read as another name), so that a narrow side bar shows more columns; the full
// name is the header's tooltip.
std::vector<std::string> distinguishingNames(const std::vector<std::string>& names) {
    const size_t prefix = sharedWordStart(names), suffix = sharedWordEnd(names);
    std::vector<std::string> out;
    for (const auto& n : names) {
        // Never less than the whole name when the shared parts overlap (one name inside another).
        if (prefix + suffix >= n.size()) return names;
        out.push_back(n.substr(prefix, n.size() - prefix - suffix));
    }
    return out;
}

// A grid of rows x samples under the heading `corner`; cell(i, s) draws row i's value in sample
// s. The rows' names take at most 40% of the width (whole in their tooltips); each sample's
// column is as wide as its short name or its numbers.
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
    const std::vector<std::string> shortNames = distinguishingNames(samples);
    for (const auto& s : shortNames)
        ImGui::TableSetupColumn(
            s.c_str(), ImGuiTableColumnFlags_WidthFixed,
            std::max(ImGui::CalcTextSize(s.c_str()).x, ImGui::CalcTextSize("100.00").x));
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (size_t c = 0; c <= samples.size(); ++c) {
        ImGui::TableSetColumnIndex(int(c));
        ImGui::TableHeader(c == 0 ? corner : shortNames[c - 1].c_str());
        if (c > 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", samples[c - 1].c_str());
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fittedText(rows[i], ImGui::GetContentRegionAvail().x).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", rows[i].c_str());
        for (size_t s = 0; s < samples.size(); ++s) {
            ImGui::TableNextColumn();
            cell(i, s);
        }
    }
    ImGui::EndTable();
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
                     if (!m_percent)
                         ImGui::Text("%llu", static_cast<unsigned long long>(c.events));
                     else if (c.parentEvents == 0)
                         ImGui::TextDisabled("-");
                     else
                         ImGui::Text("%.2f", c.percentOfParent());
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
                     if (m_percent && std::isfinite(r.fraction))
                         ImGui::Text("%.2f", 100.0 * r.fraction);
                     else if (m_percent)
                         ImGui::TextDisabled("-");
                     else
                         ImGui::Text("%llu", static_cast<unsigned long long>(r.cells));
                 });
    }
    ImGui::TextDisabled(gates && m_rows.empty() ? "Export > Counts: gate_counts.csv"
                        : gates ? "Export > Counts: gate_counts.csv, populations.csv, medians.csv"
                                : "Export > Counts: populations.csv, medians.csv");
}

}  // namespace sepal::ui
