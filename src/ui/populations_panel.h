#pragma once
// The Populations window: populations from the landmarks' metaclusters or brushed with the lasso,
// with name, colour, size, delete; the lasso's target.

#include "ui/panel.h"

namespace sepal::ui {

/// Lists populations; sets the name the lasso brushes into.
class PopulationsPanel : public Panel {
  public:
    const char* title() const override { return "Populations"; }
    void draw(UiContext& ctx) override;

  private:
    int m_metaclusters = 15;  // populations "From landmarks" makes
};

}  // namespace sepal::ui
