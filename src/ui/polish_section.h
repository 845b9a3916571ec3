#pragma once
// The Training window's "Polish the picture": which polish, its epochs, the button with its
// progress and Cancel, and what a polished picture means for the landmarks.

#include "ui/ui_context.h"

namespace sepal::ui {

/// Draws the polish controls inside the current window.
void drawPolishSection(UiContext& ctx);

}  // namespace sepal::ui
