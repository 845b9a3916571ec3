#pragma once
// The Populations window: brushed groups with name, colour, size, delete; the lasso's target.

#include "ui/panel.h"

namespace sepal::ui {

/// Lists populations; sets the name the lasso brushes into.
class PopulationsPanel : public Panel {
  public:
    const char* title() const override { return "Populations"; }
    void draw(UiContext& ctx) override;
};

}  // namespace sepal::ui
