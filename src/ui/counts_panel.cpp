#include "ui/counts_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/common/text.h"
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

}  // namespace

void CountsPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.populations.groups.empty()) {
        ImGui::TextWrapped("No populations yet: Populations > From landmarks, or the lasso.");
        return;
    }
    // Counted again when the cells, their populations or the gates change (not on every drag).
    const uint64_t key = st.version(app::Part::Data) * 1000003 +
                         st.version(app::Part::Populations) * 7919 + st.version(app::Part::Gates);
    if (m_counter != key) {
        m_rows = ws.populations().counts();
        m_counter = key;
    }
    // The rows come sample by sample (two samples may share a name), each with every
    // population in one order.
    const size_t sampleCount = st.data.samples.size();
    if (sampleCount == 0 || m_rows.empty() || m_rows.size() % sampleCount != 0) return;
    const size_t p = m_rows.size() / sampleCount;
    std::vector<std::string> samples, populations;
    for (size_t s = 0; s < sampleCount; ++s) samples.push_back(m_rows[s * p].sample);
    for (size_t i = 0; i < p; ++i) populations.push_back(m_rows[i].population);
    ImGui::RadioButton("% of sample", &m_percent, 1);
    ImGui::SameLine();
    ImGui::RadioButton("cells", &m_percent, 0);
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
    const float height = std::min(ImGui::GetTextLineHeightWithSpacing() * float(p + 2) + 8.0f,
                                  ImGui::GetTextLineHeightWithSpacing() * 16.0f);
    if (!ImGui::BeginTable("counts", int(samples.size()) + 1, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    // The populations' names take at most 40% of the width (whole in their tooltips); each
    // sample's column is as wide as its short name or its numbers.
    const float nameWidth = ImGui::GetContentRegionAvail().x * 0.4f;
    ImGui::TableSetupColumn("population", ImGuiTableColumnFlags_WidthFixed, nameWidth);
    const std::vector<std::string> shortNames = distinguishingNames(samples);
    for (const auto& s : shortNames)
        ImGui::TableSetupColumn(
            s.c_str(), ImGuiTableColumnFlags_WidthFixed,
            std::max(ImGui::CalcTextSize(s.c_str()).x, ImGui::CalcTextSize("100.00").x));
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (size_t c = 0; c <= samples.size(); ++c) {
        ImGui::TableSetColumnIndex(int(c));
        ImGui::TableHeader(c == 0 ? "population" : shortNames[c - 1].c_str());
        if (c > 0 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", samples[c - 1].c_str());
    }
    for (size_t i = 0; i < p; ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(
            fittedText(populations[i], ImGui::GetContentRegionAvail().x).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", populations[i].c_str());
        for (size_t s = 0; s < samples.size(); ++s) {
            ImGui::TableNextColumn();
            const size_t at = s * p + i;
            if (at >= m_rows.size()) continue;
            const auto& r = m_rows[at];
            if (m_percent && std::isfinite(r.fraction))
                ImGui::Text("%.2f", 100.0 * r.fraction);
            else if (m_percent)
                ImGui::TextDisabled("-");
            else
                ImGui::Text("%llu", static_cast<unsigned long long>(r.cells));
        }
    }
    ImGui::EndTable();
    ImGui::TextDisabled("Export > Counts: populations.csv, medians.csv");
}

}  // namespace sepal::ui
