#include "ui/populations_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "ui/brush_target.h"
#include "ui/fitted_text.h"

namespace sepal::ui {

void PopulationsPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    ImGui::Checkbox("Lasso tool", &ctx.lassoTool);
    ImGui::SameLine();
    ImGui::TextDisabled("(or right-drag)");
    ImGui::SetNextItemWidth(-110);
    brushTarget(ctx);  // a fresh name until the user names or chooses one
    if (ImGui::InputText("Brush into", &ctx.brushName)) ctx.brushChosen = true;
    ImGui::SetNextItemWidth(80);
    ImGui::InputInt("##metaclusters", &m_metaclusters);
    m_metaclusters = std::clamp(m_metaclusters, 2, 250);
    ImGui::SameLine();
    if (ImGui::Button("From landmarks")) ws.populations().fromLandmarks(size_t(m_metaclusters));
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Group the landmarks into this many populations (Ward's linkage, each landmark "
            "weighing its cells), as sepal-cli embed --metaclusters does; named by the cell "
            "type whose marker rules they meet, else by the lineage markers that set them "
            "apart. Replaces the populations (Ctrl+Z undoes).");
    const auto& pops = ws.state().populations.groups;
    auto sizes = ws.populations().sizes();
    if (pops.empty()) ImGui::TextWrapped("Lasso cells on the canvas to make a population.");
    if (!ctx.splitFrom.empty())
        ImGui::TextWrapped("Lasso the cells of %s to split off into %s (Esc: cancel)",
                           ctx.splitFrom.c_str(), ctx.brushName.c_str());
    for (size_t i = 0; i < pops.size(); ++i) {
        ImGui::PushID(int(i));
        app::Population p = pops[i];
        float rgb[3] = {p.colour[0] / 255.0f, p.colour[1] / 255.0f, p.colour[2] / 255.0f};
        if (ImGui::ColorEdit3("##c", rgb, ImGuiColorEditFlags_NoInputs)) {
            for (int k = 0; k < 3; ++k) p.colour[size_t(k)] = uint8_t(rgb[k] * 255.0f + 0.5f);
            ws.populations().edit(i, p);
        }
        if (ImGui::IsItemDeactivated()) ws.edits().seal();
        ImGui::SameLine();
        // The name takes what the count and the delete button leave.
        const float nameWidth = std::max(60.0f, ImGui::GetContentRegionAvail().x - 80.0f);
        // A long name gives up its middle: its ends tell namesakes apart ("... CD20bright (2)").
        const std::string shown = fittedText(p.name, nameWidth) + "###name";
        if (ImGui::Selectable(shown.c_str(), ctx.brushName == p.name, 0, ImVec2(nameWidth, 0)))
            ctx.brushName = p.name, ctx.brushChosen = true;
        // Right-click: rename, or merge into another population.
        if (ImGui::BeginPopupContextItem("edit")) {
            std::string name = p.name;
            ImGui::SetNextItemWidth(200);
            if (ImGui::InputText("Name", &name, ImGuiInputTextFlags_EnterReturnsTrue) &&
                !name.empty()) {
                p.name = name;
                ws.populations().edit(i, p);
                ws.edits().seal();
                ImGui::CloseCurrentPopup();
            }
            if (ImGui::MenuItem("Split with the lasso")) {
                // The next lasso takes only this population's cells into a new one.
                ctx.splitFrom = p.name;
                ctx.brushName = p.name + " b";
                ctx.brushChosen = true;
                ctx.lassoTool = true;
                ImGui::CloseCurrentPopup();
            }
            if (ImGui::BeginMenu("Merge into")) {
                for (size_t j = 0; j < pops.size(); ++j)
                    if (j != i && ImGui::MenuItem(pops[j].name.c_str())) {
                        ws.populations().merge(i, j);
                        ImGui::CloseCurrentPopup();
                    }
                ImGui::EndMenu();
            }
            ImGui::EndPopup();
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s%s%s (click: the lasso adds to it)", p.name.c_str(),
                              p.phenotype.empty() ? "" : "\n", p.phenotype.c_str());
        ImGui::SameLine();
        ImGui::Text("%zu", sizes[i]);
        ImGui::SameLine(ImGui::GetContentRegionAvail().x - 10);
        if (ImGui::SmallButton("x")) ws.populations().remove(i);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Delete %s", p.name.c_str());
        ImGui::PopID();
    }
}

}  // namespace sepal::ui
