#pragma once
// A window of the application (drawn as a section of one of the side bars).

#include "ui/ui_context.h"

namespace sepal::ui {

/// One window class per file: Open, Data, Training, Landmarks, Colour, Populations, Export,
/// Stats, Log.
class Panel {
  public:
    virtual ~Panel() = default;
    /// Title shown on its header.
    virtual const char* title() const = 0;
    /// Draws its contents (inside the side bar, below its header).
    virtual void draw(UiContext& ctx) = 0;
    /// Open when the app starts.
    virtual bool openByDefault() const { return true; }
    /// Draws windows of its own (outside the side bar), every frame whether its section is
    /// open or not.
    virtual void drawWindows(UiContext& ctx) {}
};

}  // namespace sepal::ui
