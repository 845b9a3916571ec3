#include "ui/log_panel.h"

#include <imgui.h>

namespace sepal::ui {

void LogPanel::draw(UiContext& ctx) {
    const auto& log = ctx.workspace.log();
    if (ImGui::BeginChild("log", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar)) {
        // Lines wrap at the visible width, left of the vertical scroll bar (a scrolled region's
        // own width grows with its longest line, and wrapping there hid words behind the bar).
        const ImGuiStyle& style = ImGui::GetStyle();
        ImGui::PushTextWrapPos(ImGui::GetWindowWidth() - style.WindowPadding.x -
                               style.ScrollbarSize);
        for (const auto& e : log) {
            ImVec4 colour = e.level == app::LogEntry::Error     ? ImVec4(1.0f, 0.45f, 0.4f, 1)
                            : e.level == app::LogEntry::Warning ? ImVec4(1.0f, 0.8f, 0.3f, 1)
                                                                : ImVec4(0.8f, 0.8f, 0.8f, 1);
            ImGui::PushStyleColor(ImGuiCol_Text, colour);
            ImGui::TextWrapped("[%6.1f] %s", e.seconds, e.text.c_str());
            ImGui::PopStyleColor();
        }
        ImGui::PopTextWrapPos();
        if (log.size() != m_seen) ImGui::SetScrollHereY(1.0f), m_seen = log.size();
    }
    ImGui::EndChild();
}

}  // namespace sepal::ui
