#pragma once
// Small multiples: the canvas split into a grid of panels, one per sample (or per group of
// samples sharing a metadata value), each showing its cells in the same layout.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "app/state.h"
#include "render/camera.h"

namespace sepal::ui {

/// One panel: its title, the events it shows and its box in the canvas (logical pixels).
struct MultiplePanel {
    std::string title;                              ///< sample name or metadata value
    std::vector<std::pair<size_t, size_t>> ranges;  ///< (first event, count) per sample
    float x = 0, y = 0, width = 0, height = 0;      ///< box, canvas-relative, y down
};

/// The panels for the state's view (none unless small multiples are on and there are several
/// samples), laid out in a grid over a canvas of width x height.
std::vector<MultiplePanel> smallMultiplePanels(const app::State& state, float width, float height);

/// The height of a panel's title band, in logical pixels (no cells are drawn in it).
float panelTitleBand();

/// The camera of a panel: the main camera's view, scaled to fit the panel below its title band.
render::Camera panelCamera(const render::Camera& main, const MultiplePanel& panel);

/// Draws each panel's frame and title over the canvas at `origin` (ImGui's background list).
void drawPanelFrames(const std::vector<MultiplePanel>& panels, std::array<float, 2> origin);

}  // namespace sepal::ui
