#include "ui/data_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace sepal::ui {

namespace {
const char* kPresets[] = {"linear", "arcsinh /5 (mass)", "arcsinh /150 (fluor.)", "arcsinh /1000"};
const float kCofactors[] = {0, 5, 150, 1000};

int presetOf(float cofactor) {
    for (int i = 0; i < 4; ++i)
        if (cofactor == kCofactors[i]) return i;
    return 0;
}
}  // namespace

void DataPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.data.tables.empty()) {
        ImGui::TextDisabled("No data open.");
        return;
    }
    ImGui::TextWrapped("%zu samples, %zu events, %zu of %zu channels used", st.data.samples.size(),
                       st.data.events(), st.data.columns.size(),
                       st.data.tables.front().channels.size());
    app::DataSettings s = st.dataSettings;
    bool changed = false;
    bool hasSpill = st.data.tables.front().spillover.has_value();
    ImGui::BeginDisabled(!hasSpill);
    changed |= ImGui::Checkbox(
        hasSpill ? "Compensate (file's spillover)" : "Compensate (no spillover in file)",
        &s.compensate);
    ImGui::EndDisabled();
    auto names = st.data.channelNames();
    if (ImGui::BeginTable("channels", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg,
                          ImVec2(0, 8 * ImGui::GetTextLineHeightWithSpacing()))) {
        ImGui::TableSetupColumn("marker");
        ImGui::TableSetupColumn("transform", ImGuiTableColumnFlags_WidthFixed, 150);
        for (size_t c = 0; c < names.size() && c < s.channels.size(); ++c) {
            ImGui::PushID(int(c));
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            changed |= ImGui::Checkbox(names[c].c_str(), &s.channels[c].use);
            if (ImGui::IsItemHovered()) m_preview = int(c);
            ImGui::TableNextColumn();
            int p = presetOf(s.channels[c].cofactor);
            ImGui::SetNextItemWidth(-1);
            if (ImGui::Combo("##t", &p, kPresets, 4)) {
                s.channels[c].cofactor = kCofactors[p];
                changed = true;
                m_preview = int(c);
            }
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    if (ImGui::Button("All")) {
        for (auto& c : s.channels) c.use = true;
        changed = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Same transform for all")) {
        float cof =
            s.channels[size_t(std::clamp(m_preview, 0, int(s.channels.size()) - 1))].cofactor;
        for (auto& c : s.channels) c.cofactor = cof;
        changed = true;
    }
    // Histogram of the previewed channel after its transform (first sample, strided).
    const auto& t = st.data.tables.front();
    size_t c = size_t(std::clamp(m_preview, 0, int(t.channels.size()) - 1));
    float cof = s.channels[c].cofactor;
    std::vector<float> values;
    size_t stride = std::max<size_t>(1, t.events() / 20000);
    for (size_t i = 0; i < t.events(); i += stride) {
        float v = t.values.at(i, c);
        values.push_back(cof > 0 ? std::asinh(v / cof) : v);
    }
    if (!values.empty()) {
        auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        float a = *lo, b = std::max(*hi, *lo + 1e-6f);
        float hist[64] = {};
        for (float v : values) hist[std::clamp(int((v - a) / (b - a) * 64), 0, 63)] += 1;
        ImGui::TextDisabled("%s  [%.3g, %.3g]", names[c].c_str(), a, b);
        ImGui::PlotHistogram("##hist", hist, 64, 0, nullptr, 0, FLT_MAX,
                             ImVec2(ImGui::GetContentRegionAvail().x, 60));
    }
    if (changed) ws.setDataSettings(s), ws.seal();
}

}  // namespace sepal::ui
