#pragma once
// The population the lasso fills: the one the user named or chose, else the first
// "population N" that no population has, so that a first lasso never adds its cells to a
// population the landmarks made ("From landmarks" names unnamed ones "population 1", ...).

#include <string>

#include "ui/ui_context.h"

namespace sepal::ui {

/// The lasso's population now: ctx.brushName once the user chose it (ctx.brushChosen), else a
/// fresh name, kept in ctx.brushName so that the Populations window shows it.
const std::string& brushTarget(UiContext& ctx);

}  // namespace sepal::ui
