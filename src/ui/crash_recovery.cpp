#include "ui/crash_recovery.h"

#include <imgui.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ui/session_open.h"

namespace sepal::ui {

namespace {

constexpr const char* kDialog = "Restore the last session?";

/// "FILES (N landmarks)" from a session file, or "" when it cannot be read.
std::string summaryOf(const std::string& path) {
    try {
        std::ifstream in(path);
        const auto j = nlohmann::json::parse(in);
        std::string files;
        for (const auto& f : j.at("files"))
            files += (files.empty() ? "" : ", ") + f.get<std::string>();
        return files;
    } catch (const std::exception&) {
        return "";
    }
}

}  // namespace

CrashRecovery::CrashRecovery(const app::AutosaveFolder& folder,
                             std::optional<app::AutosaveFile> offer)
    : m_folder(folder), m_offer(std::move(offer)) {
    if (m_offer) m_summary = summaryOf(m_offer->path);
}

bool CrashRecovery::restore(UiContext& ctx) {
    if (!m_offer) return false;
    const app::AutosaveFile file = *m_offer;
    m_offer.reset();
    app::AutosaveFolder::dismiss(file);
    ctx.workspace.log(app::LogEntry::Info,
                      "restoring the session autosaved at " + file.label + " (" + file.path + ")");
    openSession(ctx, file.path, false);
    return true;
}

bool CrashRecovery::dismiss() {
    if (!m_offer) return false;
    app::AutosaveFolder::dismiss(*m_offer);
    m_offer.reset();
    return true;
}

void CrashRecovery::drawDialog(UiContext& ctx, float contentScale) {
    if (!m_offer && !m_open) return;
    // Opened once the side bars' windows exist: Dear ImGui (1.86) asserts when a window appears
    // for the first time in the frame a modal opens.
    if (++m_frames < 3) return;
    if (m_offer && !m_open) {
        ImGui::OpenPopup(kDialog);
        m_open = true;
    }
    const ImVec2 centre = ImGui::GetMainViewport()->GetCenter();
    ImGui::SetNextWindowPos(centre, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(520 * contentScale, 0));
    if (!ImGui::BeginPopupModal(kDialog, nullptr, ImGuiWindowFlags_NoResize)) {
        m_open = false;
        return;
    }
    if (!m_offer) {  // answered elsewhere (a script): the modal must not stay open
        ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
        m_open = false;
        return;
    }
    ImGui::TextWrapped("Sepal did not close properly last time. Its session was saved at %s.",
                       m_offer->label.c_str());
    if (!m_summary.empty()) ImGui::TextWrapped("Data: %s", m_summary.c_str());
    ImGui::TextDisabled("%s", m_offer->path.c_str());
    ImGui::Spacing();
    ImGui::TextWrapped(
        "Restoring replaces what is open now. \"Not now\" keeps the file: it stays under File > "
        "Restore autosave.");
    ImGui::Spacing();
    if (ImGui::Button("Restore")) {
        restore(ctx);
        ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Not now")) {
        dismiss();
        ImGui::CloseCurrentPopup();
    }
    if (!m_offer) m_open = false;
    ImGui::EndPopup();
}

void CrashRecovery::drawMenu(UiContext& ctx) {
    if (m_folder.dir().empty()) return;
    if (!ImGui::BeginMenu("Restore autosave")) return;
    const auto files = m_folder.list();
    if (files.empty()) ImGui::TextDisabled("no autosaves yet");
    for (const app::AutosaveFile& f : files) {
        const std::string label = f.label + (f.crashed ? "  (after a crash)" : "");
        if (ImGui::MenuItem(label.c_str()) && openSession(ctx, f.path, false) && f.crashed &&
            !f.seen)
            app::AutosaveFolder::dismiss(f);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.path.c_str());
    }
    ImGui::EndMenu();
}

}  // namespace sepal::ui
