#include "ui/colour_panel.h"

#include <imgui.h>

namespace sepal::ui {

void ColourPanel::draw(UiContext& ctx) {
    auto& ws = ctx.workspace;
    const auto& st = ws.state();
    app::ColourSettings c = st.colour;
    const char* modes[] = {"Marker",     "Sample",       "Label",           "Density",
                           "Population", "Sample group", "Neighbours kept", "Change (Compare)"};
    int mode = int(c.mode);
    ImGui::PushItemWidth(-110);
    if (ImGui::Combo("Colour by", &mode, modes, IM_ARRAYSIZE(modes)))
        c.mode = app::ColourMode(mode), ws.edits().setColour(c), ws.edits().seal();
    if (c.mode == app::ColourMode::Neighbours)
        ImGui::TextWrapped(
            "%zu evenly spaced cells by the share of their %zu data-space neighbours that are "
            "also their neighbours in the picture: low where it tears. Scored again when the "
            "picture settles after an edit.",
            app::QualityService::kSample, app::QualityService::kNeighbours);
    if (c.mode == app::ColourMode::Change)
        ImGui::TextWrapped(
            "Each cell by its population's log2 fold change between the conditions the Compare "
            "window compares: red more, blue fewer, grey untested.");
    const auto& metadata = st.metadata.columns;
    if (c.mode == app::ColourMode::Group) {
        if (metadata.empty())
            ImGui::TextDisabled("Open a sample metadata CSV (Open window) first.");
        for (size_t i = 0; i < metadata.size(); ++i)
            if (ImGui::RadioButton(metadata[i].c_str(), c.groupColumn == int(i)))
                c.groupColumn = int(i), ws.edits().setColour(c), ws.edits().seal();
    }
    if (c.mode == app::ColourMode::Marker && !st.data.columns.empty()) {
        // The embedded markers, then the state markers kept beside them (pSTAT5, IFNg...): where
        // a condition changes a cell's function shows on the picture of its type.
        // The state columns only when one is shown or the list is open: their cache's key is
        // made from the pipeline's JSON, work a frame should not repeat.
        const auto stateMarkers = [&]() -> const std::vector<std::string>& {
            return ws.populations().stateColumns().markers;
        };
        const std::vector<std::string>* shownState = c.stateColumn >= 0 ? &stateMarkers() : nullptr;
        const bool byState = shownState && size_t(c.stateColumn) < shownState->size();
        int col = std::clamp(c.column, 0, int(st.data.columns.size()) - 1);
        const std::string shown = byState ? (*shownState)[size_t(c.stateColumn)] + " (state)"
                                          : st.data.label(size_t(col));
        if (ImGui::BeginCombo("Marker", shown.c_str())) {
            const std::vector<std::string>& markers = stateMarkers();
            for (size_t i = 0; i < st.data.columns.size(); ++i)
                if (ImGui::Selectable(st.data.label(i).c_str(), !byState && int(i) == col))
                    c.column = int(i), c.stateColumn = -1, ws.edits().setColour(c),
                    ws.edits().seal();
            if (!markers.empty()) ImGui::Separator();
            for (size_t i = 0; i < markers.size(); ++i)
                if (ImGui::Selectable((markers[i] + " (state)").c_str(),
                                      byState && size_t(c.stateColumn) == i))
                    c.stateColumn = int(i), ws.edits().setColour(c), ws.edits().seal();
            ImGui::EndCombo();
        }
    }
    if (c.mode == app::ColourMode::Label && !st.data.tables.empty()) {
        const auto& labels = st.data.tables.front().labels;
        if (labels.empty()) ImGui::TextDisabled("The first sample has no label column.");
        for (size_t i = 0; i < labels.size(); ++i)
            if (ImGui::RadioButton(labels[i].name.c_str(), c.labelColumn == int(i)))
                c.labelColumn = int(i), ws.edits().setColour(c), ws.edits().seal();
    }
    if (c.mode == app::ColourMode::Marker || c.mode == app::ColourMode::Density) {
        if (ImGui::BeginCombo("Map", c.map.c_str())) {
            for (const auto& n : app::colourMapNames())
                if (ImGui::Selectable(n.c_str(), n == c.map))
                    c.map = n, ws.edits().setColour(c), ws.edits().seal();
            ImGui::EndCombo();
        }
    }
    if (c.mode == app::ColourMode::Marker) {
        if (ImGui::DragFloatRange2("Clip %", &c.lowPercentile, &c.highPercentile, 0.2f, 0.0f,
                                   100.0f, "%.1f", "%.1f"))
            ws.edits().setColour(c, "clip");
        if (ImGui::IsItemDeactivated()) ws.edits().seal();
    }
    app::ViewSettings v = st.view;
    if (ImGui::SliderFloat("Point size", &v.pointSize, 1.0f, 12.0f, "%.1f px"))
        ws.edits().setView(v, "size");
    if (ImGui::IsItemDeactivated()) ws.edits().seal();
    if (ImGui::SliderFloat("Opacity", &v.alpha, 0.02f, 1.0f, "%.2f"))
        ws.edits().setView(v, "alpha");
    if (ImGui::IsItemDeactivated()) ws.edits().seal();
    ImGui::PopItemWidth();
    if (ImGui::Checkbox("Landmarks", &v.showLandmarks)) ws.edits().setView(v), ws.edits().seal();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the landmarks to drag them (key L)");
    ImGui::SameLine();
    if (ImGui::Checkbox("Graph", &v.showGraph)) ws.edits().setView(v), ws.edits().seal();
    ImGui::SameLine();
    if (ImGui::Button("Fit view")) ctx.fitRequested = true;
    // Samples side by side: a panel per sample (or per group of samples), one layout.
    if (st.data.samples.size() > 1) {
        if (ImGui::Checkbox("Small multiples", &v.smallMultiples))
            ws.edits().setView(v), ws.edits().seal();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "One panel per sample in the same layout; switch back to the "
                "overlay to edit landmarks or lasso cells");
        if (v.smallMultiples) {
            ImGui::SameLine();
            ImGui::SetNextItemWidth(-1);
            const std::string by = v.panelsBy < 0 || v.panelsBy >= int(metadata.size())
                                       ? "per sample"
                                       : "per " + metadata[size_t(v.panelsBy)];
            if (ImGui::BeginCombo("##panels", by.c_str())) {
                if (ImGui::Selectable("per sample", v.panelsBy < 0))
                    v.panelsBy = -1, ws.edits().setView(v), ws.edits().seal();
                for (size_t i = 0; i < metadata.size(); ++i)
                    if (ImGui::Selectable(("per " + metadata[i]).c_str(), v.panelsBy == int(i)))
                        v.panelsBy = int(i), ws.edits().setView(v), ws.edits().seal();
                ImGui::EndCombo();
            }
        }
    }
}

}  // namespace sepal::ui
