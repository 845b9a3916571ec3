#include "ui/gates_panel.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <cstdio>

namespace sepal::ui {

namespace {

// The children of population `id` ("" the root): gates whose parent it is, and a quadrant
// gate's quadrants (the quadrant gate itself is no population).
std::vector<std::pair<std::string, std::string>> childrenOf(const GateTree& tree,
                                                            const std::string& id) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const GateNode& g : tree.gates) {
        if (g.parent != id) continue;
        if (g.kind == GateNode::Kind::Quadrant)
            for (const Quadrant& q : g.quadrants)
                out.push_back({q.id, q.name.empty() ? q.id : q.name});
        else
            out.push_back({g.id, g.name.empty() ? g.id : g.name});
    }
    return out;
}

}  // namespace

void GatesPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    if (st.data.tables.empty()) {
        ImGui::TextWrapped(
            "Open a file, then draw gates on a Biaxial plot or open a Gating-ML (.xml) or "
            "FlowJo (.wsp) file.");
        return;
    }
    const bool all = st.gating.gates.population.empty();
    const std::string root =
        std::string(all ? "> " : "  ") + "All cells  " + std::to_string(st.data.events());
    if (ImGui::Selectable(root.c_str(), ctx.selectedGate.empty())) ctx.selectedGate.clear();
    if (ImGui::BeginDragDropTarget()) {
        if (const ImGuiPayload* p = ImGui::AcceptDragDropPayload("sepal-gate"))
            ws.gates().reparent(std::string(static_cast<const char*>(p->Data), size_t(p->DataSize)),
                                "");
        ImGui::EndDragDropTarget();
    }
    if (ImGui::BeginPopupContextItem("root")) {
        if (ImGui::MenuItem("Embed all cells", nullptr, false, !all)) ws.gates().embed("");
        ImGui::EndPopup();
    }
    if (st.gating.gates.empty()) {
        ImGui::TextDisabled("No gates: draw them on a Biaxial plot.");
        return;
    }
    for (const auto& [id, label] : childrenOf(st.gating.gates.tree, ""))
        drawNode(ctx, id, label, 1);
    ImGui::Separator();
    // Wrapped to the panel's width (two fixed lines ran past a narrow side bar).
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped(
        "> marks the embedded population. Right-click a population for its menu; drag one onto "
        "another to move it there.");
    ImGui::PopStyleColor();
    if (!ctx.selectedGate.empty() && ImGui::Button("Embed the selected population"))
        ws.gates().embed(ctx.selectedGate);
}

void GatesPanel::drawNode(UiContext& ctx, const std::string& id, const std::string& label,
                          int depth) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    const GateCount* count = st.gating.countOf(id);
    char numbers[64] = "";
    if (count)
        std::snprintf(numbers, sizeof numbers, "%zu  %.1f%%", count->events,
                      count->percentOfParent());
    const bool embedded = st.gating.gates.population == id;
    ImGui::PushID(id.c_str());
    ImGui::Indent(14.0f * float(depth));
    if (m_renaming == id) {
        ImGui::SetNextItemWidth(160);
        ImGui::SetKeyboardFocusHere();
        if (ImGui::InputText("##name", &m_name, ImGuiInputTextFlags_EnterReturnsTrue)) {
            ws.gates().rename(id, m_name);
            m_renaming.clear();
        }
        if (ImGui::IsKeyPressed(ImGuiKey_Escape)) m_renaming.clear();
    } else {
        const std::string row = std::string(embedded ? "> " : "  ") + label + "  " + numbers;
        if (ImGui::Selectable(row.c_str(), ctx.selectedGate == id,
                              ImGuiSelectableFlags_AllowDoubleClick)) {
            ctx.selectedGate = id;
            if (ImGui::IsMouseDoubleClicked(0)) ws.gates().embed(id);
        }
        if (ImGui::IsItemHovered() && count)
            ImGui::SetTooltip(
                "%s\n%zu events, %.2f%% of its parent, %.2f%% of all\ndouble-click: embed these "
                "cells",
                count->path.c_str(), count->events, count->percentOfParent(),
                count->percentOfAll());
        if (ImGui::BeginDragDropSource()) {
            ImGui::SetDragDropPayload("sepal-gate", id.data(), id.size());
            ImGui::Text("move %s", label.c_str());
            ImGui::EndDragDropSource();
        }
        if (ImGui::BeginDragDropTarget()) {
            if (const ImGuiPayload* p = ImGui::AcceptDragDropPayload("sepal-gate"))
                ws.gates().reparent(
                    std::string(static_cast<const char*>(p->Data), size_t(p->DataSize)), id);
            ImGui::EndDragDropTarget();
        }
        if (ImGui::BeginPopupContextItem("menu")) {
            if (ImGui::MenuItem("Embed these cells", nullptr, false, !embedded))
                ws.gates().embed(id);
            if (ImGui::MenuItem("Plot these cells")) {
                BiaxialSettings s;
                s.parent = id;
                s.gateName = "gate";
                ctx.plots.push_back(s);
            }
            if (ImGui::MenuItem("Rename")) m_renaming = id, m_name = label;
            if (ImGui::MenuItem("Delete (with what lies under it)")) ws.gates().remove(id);
            ImGui::EndPopup();
        }
    }
    ImGui::Unindent(14.0f * float(depth));
    for (const auto& [child, name] : childrenOf(st.gating.gates.tree, id))
        drawNode(ctx, child, name, depth + 1);
    ImGui::PopID();
}

}  // namespace sepal::ui
