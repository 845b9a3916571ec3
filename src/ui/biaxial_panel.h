#pragma once
// Biaxial plots: any two channels of one population's cells, by density or by population, in
// windows of their own (large, resizable, several side by side as a gating strategy reads:
// FSC/SSC, then singlets, then live). Each draws the gates on those cells with their names and
// percentages, axes with ticks in data units on the scale chosen per axis, and turns drags and
// clicks into rectangle, range, polygon, ellipse and quadrant gates.

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "app/biaxial.h"
#include "render/texture.h"
#include "ui/panel.h"

namespace sepal::ui {

/// The side bar's list of plots, and the plots' windows.
class BiaxialPanel : public Panel {
  public:
    const char* title() const override { return "Biaxial"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;
    void drawWindows(UiContext& ctx) override;

  private:
    /// One plot's window: what it computed and what is being drawn on it.
    struct PlotView {
        app::BiaxialPlot plot;
        std::string plotKey, pictureKey, error;
        render::Texture texture;
        std::vector<float> drawing;  // polygon vertices so far (plot units)
        bool dragging = false;
        float dragStart[2] = {0, 0};
    };

    /// Draws plot `index`'s window.
    void drawPlot(UiContext& ctx, size_t index);
    /// Recomputes the plot when the data, gates or axes changed; false when it cannot be made.
    bool refreshPlot(UiContext& ctx, BiaxialSettings& settings, PlotView& view);
    /// The controls above the plot: channels, scales, the population shown, tool and name.
    void drawControls(UiContext& ctx, BiaxialSettings& settings);
    /// The plot's cells, gates, axes and the mouse's tools in the box at (ox, oy), w x h.
    void drawPlotArea(UiContext& ctx, BiaxialSettings& settings, PlotView& view, float ox, float oy,
                      float w, float h, bool first);
    /// Adds `gate` (dimensions on the plot's axes, coordinates in plot units) under the
    /// population the plot shows, named from the settings.
    void addGate(UiContext& ctx, const BiaxialSettings& settings, const PlotView& view,
                 GateNode gate);

    std::deque<PlotView> m_views;  // one per ctx.plots entry
};

}  // namespace sepal::ui
