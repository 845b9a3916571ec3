#pragma once
// The Colour window: by marker (map, percentile clipping), sample, label, density, population.

#include "ui/panel.h"

namespace sepal::ui {

/// Edits ColourSettings and ViewSettings (point size, opacity).
class ColourPanel : public Panel {
  public:
    const char* title() const override { return "Colour"; }
    void draw(UiContext& ctx) override;
};

}  // namespace sepal::ui
