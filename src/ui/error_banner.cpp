#include "ui/error_banner.h"

#include <imgui.h>

namespace sepal::ui {

void ErrorBanner::draw(UiContext& ctx, std::array<float, 2> o) {
    const auto& ws = ctx.workspace;
    const auto& log = ws.log();
    if (ws.errorCount() != m_errorsSeen) {
        m_errorsSeen = ws.errorCount();
        for (auto it = log.rbegin(); it != log.rend(); ++it)
            if (it->level == app::LogEntry::Error) {
                m_banner = it->text;
                break;
            }
        m_bannerUntil = ws.seconds() + 10.0;
    }
    if (m_banner.empty() || ws.seconds() > m_bannerUntil) return;
    ImGui::SetNextWindowPos(ImVec2(o[0] + 12, o[1] + 12));
    ImGui::SetNextWindowSize(ImVec2(ctx.camera.width() - 24, 0));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.55f, 0.12f, 0.12f, 0.95f));
    ImGui::Begin("##error", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::TextWrapped("Error: %s", m_banner.c_str());
    if (ImGui::SmallButton("Dismiss")) m_banner.clear();
    ImGui::End();
    ImGui::PopStyleColor();
}

}  // namespace sepal::ui
