#pragma once
// Reading a script action's arguments, with errors that name the script line, so a test
// script's mistake points at itself rather than at the application.

#include <string>
#include <vector>

#include "gui/script.h"

namespace sepal::gui {

/// True when `word` is among `args` (flags like right, ctrl, shift may stand anywhere).
bool hasWord(const std::vector<std::string>& args, const char* word);

/// Argument `i` as a number; throws InputError naming the line when missing or not a number.
float numberArg(const ScriptAction& a, size_t i);

}  // namespace sepal::gui
