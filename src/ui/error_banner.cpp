#include "ui/error_banner.h"

#include <imgui.h>

#include <algorithm>

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
    // Along the canvas's lower edge, left of the colour key: the picture's top, where the user
    // looks first, stays clear.
    ImGui::SetNextWindowPos(ImVec2(o[0] + 12, o[1] + ctx.camera.height() - 12), ImGuiCond_Always,
                            ImVec2(0, 1));
    ImGui::SetNextWindowSize(ImVec2(std::max(240.0f, ctx.camera.width() - ctx.keySize[0] - 36), 0));
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
