#pragma once
// The menu bar: File (demo data, generated data, autosave, session, quit), Edit (undo, redo),
// View (fit), and the line of counts on its right.

#include <string>

#include "ui/ui_context.h"

namespace sepal::ui {

/// Draws the menu bar; autosavePath: the autosave file ("" = none), for "Restore autosave".
void drawMainMenu(UiContext& ctx, const std::string& autosavePath, float contentScale);

}  // namespace sepal::ui
