#pragma once
// The colour bar or legend in the canvas's lower right corner; it records the corner it covers
// (UiContext::keySize) so that fitting keeps the picture clear of it.

#include <array>

#include "ui/ui_context.h"

namespace sepal::ui {

/// Draws the workspace's colour key over the canvas whose top-left is `origin` (window pixels).
void drawColourKey(UiContext& ctx, std::array<float, 2> origin, float contentScale);

}  // namespace sepal::ui
