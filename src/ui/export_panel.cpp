#include "ui/export_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>

namespace sepal::ui {

ExportPanel::ExportPanel() {
    std::error_code ec;
    m_folder = std::filesystem::current_path(ec).string();
}

void ExportPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    ImGui::PushItemWidth(-70);
    ImGui::InputText("Folder", &m_folder);
    ImGui::InputText("Name", &m_base);
    ImGui::PopItemWidth();
    auto path = [&](const char* ext) {
        return (std::filesystem::path(m_folder) / (m_base + ext)).string();
    };
    auto run = [&](const char* what, const std::string& p, auto&& fn) {
        try {
            fn(p);
            m_status = std::string(what) + " written: " + p;
            ws.log(app::LogEntry::Info, m_status);
        } catch (const std::exception& e) {
            ctx.error(std::string(what) + " export failed: " + e.what());
            m_status.clear();
        }
    };
    bool none = ws.state().data.events() == 0;
    ImGui::BeginDisabled(none);
    if (ImGui::Button("CSV")) run("CSV", path(".csv"), [&](auto& p) { ws.exportCsv(p); });
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Transformed columns, embed_x, embed_y, sample, population");
    ImGui::SameLine();
    if (ImGui::Button("FCS")) run("FCS", path(".fcs"), [&](auto& p) { ws.exportFcs(p); });
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Raw channels plus embed_x, embed_y, population");
    ImGui::SameLine();
    if (ImGui::Button("Model"))
        run("Model", path(".model.json"), [&](auto& p) { ws.exportModel(p); });
    ImGui::SameLine();
    if (ImGui::Button("Session"))
        run("Session", path(".session.json"), [&](auto& p) {
            ws.saveSession(p, ctx.camera.state());
            ctx.sessionPath = p;
        });
    ImGui::SetNextItemWidth(140);
    ImGui::InputInt2("PNG size", &m_width);
    m_width = std::clamp(m_width, 64, 8192);
    m_height = std::clamp(m_height, 64, 8192);
    ImGui::Checkbox("Colour bar / legend", &m_key);
    ImGui::SameLine();
    if (ImGui::Button("PNG")) {
        ctx.pendingPng = {path(".png"), m_width, m_height, m_key};
        ctx.pngRequest = &ctx.pendingPng;
        m_status = "PNG written: " + path(".png");
    }
    ImGui::EndDisabled();
    if (!m_status.empty()) ImGui::TextWrapped("%s", m_status.c_str());
}

}  // namespace sepal::ui
