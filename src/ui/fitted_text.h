#pragma once
// Names cut to the room a window gives them, keeping both ends: population and sample names tell
// themselves apart at their ends ("CD10+ CD38bright CD20bright (2)", "..._Control_2").

#include <string>
#include <vector>

namespace sepal::ui {

/// `text` within `width` pixels of the current ImGui font, its middle given up to "..." (whole
/// when it fits; callers show it whole in a tooltip).
std::string fittedText(const std::string& text, float width);

/// Each of `names` as fittedText, told apart where they would read the same (elideApart).
std::vector<std::string> fittedNames(const std::vector<std::string>& names, float width);

}  // namespace sepal::ui
