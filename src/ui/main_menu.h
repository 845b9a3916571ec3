#pragma once
// The menu bar: File (open, demo data, generated data, autosave, save session, export, quit),
// Edit (undo, redo), View (fit), and the line of counts on its right.

#include <string>

#include "ui/ui_context.h"

namespace sepal::ui {

class CrashRecovery;

/// Draws the menu bar; recovery draws File > Restore autosave.
void drawMainMenu(UiContext& ctx, CrashRecovery& recovery, float contentScale);

/// File > Save session (Ctrl+S): to the path last saved or loaded; without one, the Export
/// section (whose Session button names the file) opens instead.
void saveSession(UiContext& ctx);

}  // namespace sepal::ui
