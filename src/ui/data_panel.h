#pragma once
// The Data window: markers to use, per-channel transform presets with a histogram, compensation.

#include "ui/panel.h"

namespace sepal::ui {

/// Edits DataSettings; every change is one undo step.
class DataPanel : public Panel {
  public:
    const char* title() const override { return "Data"; }
    void draw(UiContext& ctx) override;
    bool openByDefault() const override { return false; }

  private:
    int m_preview = 0;  // channel whose histogram is shown
};

}  // namespace sepal::ui
