#pragma once
// The Biaxial window: any two channels of the open samples, by density or by population, with
// rectangle and polygon gates drawn on it for clean-up (live cells on DNA vs viability,
// singlets) and for back-gating a population from the embedding onto two markers.

#include <cstdint>
#include <string>
#include <vector>

#include "app/biaxial.h"
#include "render/texture.h"
#include "ui/panel.h"

namespace sepal::ui {

/// Draws the plot and its gates, and turns mouse drags and clicks on it into gates.
class BiaxialPanel : public Panel {
  public:
    const char* title() const override { return "Biaxial"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;

  private:
    /// Recomputes the plot when the data or the axes changed; false when it cannot be made.
    bool refreshPlot(UiContext& ctx);
    /// Handles the mouse on the plot (its box at `origin`, `size` pixels square).
    void drawGates(UiContext& ctx, float ox, float oy, float size);
    /// Adds the polygon (plot units) as a gate named from the settings.
    void addGate(UiContext& ctx, std::vector<float> polygon);

    app::BiaxialPlot m_plot;
    std::string m_plotKey, m_pictureKey, m_error;
    render::Texture m_texture;
    std::vector<float> m_drawing;  // polygon vertices so far (plot units)
    bool m_dragging = false;
    float m_dragStart[2] = {0, 0};
};

}  // namespace sepal::ui
