#pragma once
// The menu bar: File (demo data, generated data, autosave, session, quit), Edit (undo, redo),
// View (fit), and the line of counts on its right.

#include <string>

#include "ui/ui_context.h"

namespace sepal::ui {

class CrashRecovery;

/// Draws the menu bar; recovery draws File > Restore autosave.
void drawMainMenu(UiContext& ctx, CrashRecovery& recovery, float contentScale);

}  // namespace sepal::ui
