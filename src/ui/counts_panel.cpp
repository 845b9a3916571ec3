#include "ui/counts_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace sepal::ui {

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
                                  ImGuiTableFlags_SizingFixedFit;
    const float height = std::min(ImGui::GetTextLineHeightWithSpacing() * float(p + 2) + 8.0f,
                                  ImGui::GetTextLineHeightWithSpacing() * 16.0f);
    if (!ImGui::BeginTable("counts", int(samples.size()) + 1, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("population");
    for (const auto& s : samples) ImGui::TableSetupColumn(s.c_str());
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < p; ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(populations[i].c_str());
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
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Export > Counts writes these as populations.csv, with medians.csv");
}

}  // namespace sepal::ui
