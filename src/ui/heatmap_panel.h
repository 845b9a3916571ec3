#pragma once
// The Heatmap window: populations x markers, each marker's median scaled between its 1st and
// 99th percentile, cell counts beside the rows; a click on a row makes it the lasso's target.

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

  private:
    Heatmap m_heatmap;
    uint64_t m_counter = ~uint64_t(0);  // the state's counter m_heatmap was made at
};

}  // namespace sepal::ui
