#pragma once
// Names cut to the room a window gives them, keeping both ends: population and sample names tell
// themselves apart at their ends ("CD10+ CD38bright CD20bright (2)", "..._Control_2").

#include <string>

namespace sepal::ui {

/// `text` within `width` pixels of the current ImGui font, its middle given up to "..." (whole
/// when it fits; callers show it whole in a tooltip).
std::string fittedText(const std::string& text, float width);

}  // namespace sepal::ui
