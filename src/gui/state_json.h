#pragma once
// The application's state as one JSON line: what the GUI tests read instead of the pixels.

#include <string>

namespace sepal::gui {

class Application;

/// One JSON line describing the application's state (the script's "state" action; tests read
/// it): counts, undo labels, the canvas and each landmark in window pixels, the colour key.
std::string stateJson(Application& application);

}  // namespace sepal::gui
