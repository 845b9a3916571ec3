#include "ui/small_multiples.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace sepal::ui {

std::vector<MultiplePanel> smallMultiplePanels(const app::State& state, float width, float height) {
    const auto& samples = state.data.samples;
    if (!state.view.smallMultiples || samples.size() < 2) return {};
    std::vector<MultiplePanel> panels;
    const auto& metadata = state.metadata;
    const int by = state.view.panelsBy;
    if (by >= 0 && size_t(by) < metadata.columns.size()) {
        // One panel per value of the metadata column, its samples together.
        std::vector<std::string> paths;
        for (const auto& s : samples) paths.push_back(s.path);
        for (const auto& value : metadata.valuesOver(paths, size_t(by))) {
            MultiplePanel p;
            p.title =
                metadata.columns[size_t(by)] + ": " + (value.empty() ? "(not listed)" : value);
            for (const auto& s : samples)
                if (metadata.valueOf(s.path, size_t(by)) == value)
                    p.ranges.emplace_back(s.first, s.count);
            panels.push_back(std::move(p));
        }
    } else {
        for (const auto& s : samples) panels.push_back({s.name, {{s.first, s.count}}});
    }
    // A grid as square as the canvas allows.
    const size_t k = panels.size();
    size_t best = 1;
    float bestSide = 0;
    for (size_t cols = 1; cols <= k; ++cols) {
        const size_t rows = (k + cols - 1) / cols;
        const float side = std::min(width / float(cols), height / float(rows));
        if (side > bestSide) bestSide = side, best = cols;
    }
    const size_t cols = best, rows = (k + cols - 1) / cols;
    const float w = width / float(cols), h = height / float(rows);
    for (size_t i = 0; i < k; ++i) {
        panels[i].x = float(i % cols) * w;
        panels[i].y = float(i / cols) * h;
        panels[i].width = w;
        panels[i].height = h;
    }
    return panels;
}

float panelTitleBand() {
    return ImGui::GetTextLineHeight() + 10.0f;  // the title at 6 px, and a gap under it
}

render::Camera panelCamera(const render::Camera& main, const MultiplePanel& panel) {
    render::Camera camera = main;
    auto view = main.state();
    // The whole of what the main camera shows, shrunk into the panel below its title, so that no
    // cell is drawn under the title.
    const float band = std::min(panelTitleBand(), 0.5f * panel.height);
    view[2] *= std::min(panel.width / std::max(1.0f, main.width()),
                        (panel.height - band) / std::max(1.0f, main.height()));
    // World y grows upwards: the centre moves up by half the band, and the picture down.
    view[1] += 0.5f * band / std::max(view[2], 1e-30f);
    camera.setViewport(panel.width, panel.height);
    camera.setState(view);
    return camera;
}

void drawPanelFrames(const std::vector<MultiplePanel>& panels, std::array<float, 2> origin) {
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    for (const auto& p : panels) {
        const ImVec2 a(origin[0] + p.x, origin[1] + p.y);
        const ImVec2 b(a.x + p.width, a.y + p.height);
        draw->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1),
                      IM_COL32(90, 95, 110, 255));
        draw->AddText(ImVec2(a.x + 8, a.y + 6), IM_COL32(220, 220, 230, 255), p.title.c_str());
    }
}

}  // namespace sepal::ui
