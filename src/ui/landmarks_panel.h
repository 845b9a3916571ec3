#pragma once
// The Landmarks window: count, add, remove, lock, and the selection made on the canvas.

#include <set>

#include "ui/panel.h"

namespace sepal::ui {

/// Landmark count and edits; the canvas shares the selection.
class LandmarksPanel : public Panel {
  public:
    /// selection: landmark indices selected on the canvas (shared with it).
    explicit LandmarksPanel(std::set<size_t>& selection) : m_selection(selection) {}
    const char* title() const override { return "Landmarks"; }
    void draw(UiContext& ctx) override;

  private:
    std::set<size_t>& m_selection;
};

}  // namespace sepal::ui
