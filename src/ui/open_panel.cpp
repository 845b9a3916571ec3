#include "ui/open_panel.h"

#include <imgui.h>

#include <algorithm>
#include <filesystem>

#include "ui/session_open.h"

namespace sepal::ui {

namespace fs = std::filesystem;

OpenPanel::OpenPanel() {
    std::error_code ec;
    m_folder = fs::current_path(ec).string();
    refresh();
}

void OpenPanel::refresh() {
    m_entries.clear();
    std::error_code ec;
    for (const auto& e :
         fs::directory_iterator(m_folder, fs::directory_options::skip_permission_denied, ec)) {
        std::string name = e.path().filename().string();
        if (name.starts_with(".")) continue;
        std::string ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
        if (e.is_directory(ec))
            m_entries.push_back(name + "/");
        else if (ext == ".fcs" || ext == ".csv" || ext == ".tsv" || ext == ".txt" ||
                 ext == ".json" || ext == ".xml" || ext == ".wsp")
            m_entries.push_back(name);
    }
    std::sort(m_entries.begin(), m_entries.end());
    m_selected.assign(m_entries.size(), false);
}

void OpenPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    if (const auto* task = ws.data().loading()) {
        ImGui::TextWrapped("%s", task->current().c_str());
        ImGui::ProgressBar(float(task->progress()), ImVec2(-90, 0));
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) ws.data().cancelLoading();
        return;
    }
    ImGui::TextDisabled("Folder");
    ImGui::TextWrapped("%s", m_folder.c_str());
    if (ImGui::SmallButton("Up")) {
        m_folder = fs::path(m_folder).parent_path().string();
        refresh();
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Refresh")) refresh();
    if (ImGui::BeginListBox("##files", ImVec2(-1, 6 * ImGui::GetTextLineHeightWithSpacing()))) {
        for (size_t i = 0; i < m_entries.size(); ++i) {
            bool dir = m_entries[i].ends_with("/");
            if (ImGui::Selectable(m_entries[i].c_str(), m_selected[i],
                                  ImGuiSelectableFlags_AllowDoubleClick)) {
                if (dir && ImGui::IsMouseDoubleClicked(0)) {
                    m_folder =
                        (fs::path(m_folder) / m_entries[i].substr(0, m_entries[i].size() - 1))
                            .string();
                    refresh();
                    break;
                }
                if (!ImGui::GetIO().KeyCtrl) std::fill(m_selected.begin(), m_selected.end(), false);
                m_selected[i] = !dir && !m_selected[i];
                if (!dir && ImGui::IsMouseDoubleClicked(0))
                    openPaths(ctx, {(fs::path(m_folder) / m_entries[i]).string()}, m_addAsSamples);
            }
        }
        ImGui::EndListBox();
    }
    std::vector<std::string> chosen;
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_selected[i]) chosen.push_back((fs::path(m_folder) / m_entries[i]).string());
    ImGui::BeginDisabled(chosen.empty());
    if (ImGui::Button(chosen.size() > 1 ? "Open as samples" : "Open"))
        openPaths(ctx, chosen, m_addAsSamples);
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Checkbox("Add to current", &m_addAsSamples);
    // A CSV of file,condition,patient,... describes the open samples instead of adding cells.
    const bool oneTable = chosen.size() == 1 && (fs::path(chosen[0]).extension() == ".csv" ||
                                                 fs::path(chosen[0]).extension() == ".tsv");
    ImGui::BeginDisabled(!oneTable || ws.state().data.samples.empty());
    if (ImGui::Button("Open as sample metadata")) ws.data().openSampleMetadata(chosen[0]);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(
            "A CSV with a row per file: file,condition,patient,batch; colours and "
            "groups the open samples by them");
    ImGui::EndDisabled();
    ImGui::SetNextItemWidth(-60);
    ImGui::InputTextWithHint("##path", "or type a path", m_path, sizeof m_path);
    ImGui::SameLine();
    if (ImGui::Button("Go") && m_path[0]) openPaths(ctx, {m_path}, m_addAsSamples);
    if (!ws.data().recentFiles().empty()) {
        ImGui::TextDisabled("Recent");
        for (const auto& r : ws.data().recentFiles()) {
            ImGui::PushID(r.c_str());
            if (ImGui::Selectable(fs::path(r).filename().string().c_str()))
                openPaths(ctx, {r}, false);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.c_str());
            ImGui::PopID();
        }
    }
    ImGui::TextDisabled("Tip: drop files onto the window to open them.");
}

}  // namespace sepal::ui
