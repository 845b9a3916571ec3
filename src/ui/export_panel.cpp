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
    const char* values[] = {"raw values", "transformed values"};
    int v = int(m_options.values);
    ImGui::SetNextItemWidth(150);
    if (ImGui::Combo("##values", &v, values, 2)) m_options.values = ExportValues(v);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("CSV only: FCS always holds the raw values FlowJo expects");
    // On its own line: beside the values' choice the side bar cut its label.
    bool used = !m_options.allChannels;
    if (ImGui::Checkbox("used channels only", &used)) m_options.allChannels = !used;
    ImGui::Checkbox("one file per population", &m_options.perPopulation);
    auto events = [&](const std::string& p) {
        const auto written = ws.exports().events(p, m_options);
        if (written.size() > 1)
            ws.log(app::LogEntry::Info, std::to_string(written.size()) + " files");
    };
    if (ImGui::Button("CSV")) run("CSV", path(".csv"), events);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Every channel headed 'CD3 (Sm154Di)', EmbedSOM1, EmbedSOM2, population, "
            "sample");
    ImGui::SameLine();
    if (ImGui::Button("FCS")) run("FCS", path(".fcs"), events);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Every raw channel, keywords and spillover, plus EmbedSOM1, EmbedSOM2 "
            "and the named population");
    ImGui::SameLine();
    if (ImGui::Button("AnnData")) run("AnnData", path(".h5ad"), events);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            ".h5ad for scanpy and pytometry: X the embedded channels as transformed, "
            "layers['raw'] the raw values, obsm['X_embedsom'], obs the sample, population and "
            "each gate's membership");
    ImGui::SameLine();
    if (ImGui::Button("Model"))
        run("Model", path(".model.json"), [&](auto& p) { ws.exports().model(p); });
    ImGui::SameLine();
    if (ImGui::Button("Session"))
        run("Session", path(".session.json"), [&](auto& p) {
            ws.exports().saveSession(p, ctx.camera.state());
            ctx.sessionPath = p;
        });
    if (!ws.state().populations.groups.empty()) {
        ImGui::SameLine();
        if (ImGui::Button("Heatmap"))
            run("Heatmap", path(".heatmap.png"),
                [&](auto& p) { ws.exports().heatmap(p, m_light); });
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Populations x markers, scaled medians and counts, as PNG");
        ImGui::SameLine();
        if (ImGui::Button("Counts"))
            run("Counts", m_folder, [&](const std::string& folder) {
                std::string names;
                for (const auto& written : ws.exports().counts(folder))
                    names += (names.empty() ? "" : ", ") +
                             std::filesystem::path(written).filename().string();
                ws.log(app::LogEntry::Info, "counts: " + names);
            });
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Into the folder: populations.csv (cells per sample and population), "
                "medians.csv and sample_medians.csv, as sepal-cli apply writes them; with gates "
                "gate_counts.csv (each gate's events per sample), as sepal-cli gate --counts");
    }
    ImGui::SetNextItemWidth(140);
    ImGui::InputInt2("PNG size", &m_width);
    m_width = std::clamp(m_width, 64, 8192);
    m_height = std::clamp(m_height, 64, 8192);
    ImGui::Checkbox("Colour bar / legend", &m_key);
    ImGui::SameLine();
    ImGui::Checkbox("Light", &m_light);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A white background, for print (the PNG and the heatmap)");
    ImGui::Checkbox("Landmarks", &m_landmarks);
    ImGui::SameLine();
    ImGui::Checkbox("Graph", &m_graph);
    ImGui::SameLine();
    if (ImGui::Button("PNG")) {
        ctx.pendingPng = {path(".png"), m_width, m_height, m_key, m_landmarks, m_graph, m_light};
        ctx.pngRequest = &ctx.pendingPng;
        m_status = "PNG written: " + path(".png");
    }
    ImGui::EndDisabled();
    if (!m_status.empty()) ImGui::TextWrapped("%s", m_status.c_str());
}

}  // namespace sepal::ui
