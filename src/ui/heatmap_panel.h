#pragma once
// The Heatmap window: populations x markers, each marker's median scaled between its 1st and
// 99th percentile, rows and columns in the exported picture's clustered order (type and state
// markers as two blocks), marker names reading upwards, cells and percentages beside the rows,
// scrolled and zoomed; a click on a row shows the population and makes it the lasso's target.

#include <cstdint>

#include "core/cluster/heatmap.h"
#include "ui/panel.h"

namespace sepal::ui {

/// Draws the workspace's population heatmap, recomputed when the document changes.
class HeatmapPanel : public Panel {
  public:
    const char* title() const override { return "Heatmap"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;
    /// The heatmap in a large window of its own, when asked for.
    void drawWindows(UiContext& ctx) override;

  private:
    Heatmap m_heatmap;
    HeatmapOrder m_order;  // m_heatmap's clustered order
    float m_cell = 18.0f;  // a cell's width in pixels (the zoom)
    /// Refreshes the heatmap when the document changed; false without populations.
    bool refresh(UiContext& ctx);
    /// The heatmap itself, scrolled inside a child region that takes what is left.
    void drawGrid(UiContext& ctx, const char* id);
    uint64_t m_counter = ~uint64_t(0);  // the state's counter m_heatmap was made at
};

}  // namespace sepal::ui
