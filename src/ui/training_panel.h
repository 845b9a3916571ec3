#pragma once
// The Training window: trainer, parameters, run/pause/reset, projection sliders, graph, seed.

#include "ui/panel.h"

namespace sepal::ui {

/// Edits TrainingSettings and EmbedParams and drives the training run.
class TrainingPanel : public Panel {
  public:
    const char* title() const override { return "Training"; }
    void draw(UiContext& ctx) override;
};

}  // namespace sepal::ui
