#include "ui/side_bars.h"

#include <imgui.h>

namespace sepal::ui {

void SideBars::draw(UiContext& ctx, float top, float left, float right) {
    ImGuiViewport* vp = ImGui::GetMainViewport();
    float height = vp->Size.y - top;
    ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                             ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoTitleBar |
                             ImGuiWindowFlags_NoBringToFrontOnFocus;
    ctx.openPanels.clear();
    auto bar = [&](const char* name, float x, float w, auto& panels) {
        ImGui::SetNextWindowPos(ImVec2(x, top));
        ImGui::SetNextWindowSize(ImVec2(w, height));
        ImGui::Begin(name, nullptr, flags);
        for (auto& p : panels) {
            ImGui::SetNextItemOpen(p->openByDefault(), ImGuiCond_Once);
            if (auto it = m_requests.find(p->title()); it != m_requests.end()) {
                ImGui::SetNextItemOpen(it->second, ImGuiCond_Always);
                m_requests.erase(it);
            }
            if (ImGui::CollapsingHeader(p->title())) {
                ctx.openPanels.push_back(p->title());
                ImGui::PushID(p->title());
                ImGui::Indent(4);
                p->draw(ctx);
                ImGui::Unindent(4);
                ImGui::PopID();
                ImGui::Spacing();
            }
        }
        ImGui::End();
    };
    bar("##left", 0, left, m_left);
    bar("##right", vp->Size.x - right, right, m_right);
    ctx.canvasArea = {left, top, vp->Size.x - left - right, height};
    for (auto* panels : {&m_left, &m_right})
        for (auto& p : *panels) p->drawWindows(ctx);
}

}  // namespace sepal::ui
