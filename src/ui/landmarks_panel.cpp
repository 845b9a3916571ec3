#include "ui/landmarks_panel.h"

#include <imgui.h>

#include <vector>

namespace sepal::ui {

void LandmarksPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& m = ws.state().model;
    size_t locked = 0;
    for (auto l : m.locked) locked += l != 0;
    ImGui::Text("%zu landmarks, %zu locked, %zu edges", m.count(), locked, m.edges.size());
    if (ImGui::Button("Add at centre")) {
        auto w = ctx.camera.toWorld(ctx.camera.width() * 0.5f, ctx.camera.height() * 0.5f);
        ws.edits().addLandmark(w[0], w[1]);
    }
    std::vector<size_t> sel(m_selection.begin(), m_selection.end());
    ImGui::SameLine();
    ImGui::BeginDisabled(sel.empty());
    if (ImGui::Button("Remove selected")) {
        ws.edits().removeLandmarks(sel);
        m_selection.clear();
    }
    if (ImGui::Button("Lock selected")) ws.edits().setLocked(sel, true);
    ImGui::SameLine();
    if (ImGui::Button("Unlock selected")) ws.edits().setLocked(sel, false);
    ImGui::EndDisabled();
    ImGui::Text("Selected: %zu", sel.size());
    ImGui::TextWrapped("Drag: move, Ctrl+click: add, Shift+drag: select.");
    ImGui::TextWrapped("Ctrl+right-click or Delete: remove.");
}

}  // namespace sepal::ui
