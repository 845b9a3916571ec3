#pragma once
// The Compare window: which metadata column holds the conditions, which two to compare and what
// pairs the samples; the populations' differential abundance (sorted by adjusted p) with a box
// plot of the selected one, and the state markers' differential state, recomputed in the
// background as the populations are steered.

#include <string>

#include "ui/panel.h"

namespace sepal::ui {

/// Compares conditions across the samples.
class ComparePanel : public Panel {
  public:
    ComparePanel();
    const char* title() const override { return "Compare"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;

  private:
    /// The choice of column, levels and block; true when it changed.
    bool drawChoice(UiContext& ctx);
    /// The abundance table; a click selects a population.
    void drawAbundance(UiContext& ctx);
    /// The selected population's frequencies per sample by condition (the one the colouring
    /// highlights: a click here, on the heatmap, or a script chooses it).
    void drawBoxPlot(UiContext& ctx);
    /// The differential state table.
    void drawState(UiContext& ctx);

    std::string m_folder;  // where Export writes
};

}  // namespace sepal::ui
