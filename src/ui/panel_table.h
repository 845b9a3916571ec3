#pragma once
// The application's windows in one table: which side bar holds each, top to bottom. A new window
// is one row here.

#include "ui/canvas.h"
#include "ui/side_bars.h"

namespace sepal::ui {

/// Puts every window of the table into its side bar; the Landmarks window edits the canvas's
/// selection.
void addPanels(SideBars& bars, Canvas& canvas);

}  // namespace sepal::ui
