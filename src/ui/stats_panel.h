#pragma once
// The Stats window: frame rate, projection time, backend and why, GPU memory.

#include "ui/panel.h"

namespace sepal::ui {

/// Read-only figures about the last frames.
class StatsPanel : public Panel {
  public:
    const char* title() const override { return "Stats"; }
    void draw(UiContext& ctx) override;
};

}  // namespace sepal::ui
