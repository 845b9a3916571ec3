#pragma once
// The Gates window: the gate tree with each population's events and share of its parent.
// Select a population, rename it, delete it, drag it under another, embed its cells or open a
// plot of them; every edit is one undo step.

#include <string>

#include "ui/panel.h"

namespace sepal::ui {

/// Draws the tree and turns clicks, drags and its menu into gate edits.
class GatesPanel : public Panel {
  public:
    const char* title() const override { return "Gates"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;

  private:
    /// One population's row and, below it, its children's.
    void drawNode(UiContext& ctx, const std::string& id, const std::string& label, int depth);

    std::string m_renaming;  // the population whose name is being edited
    std::string m_name;      // the name being typed
};

}  // namespace sepal::ui
