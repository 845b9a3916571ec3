#pragma once
// PNG exports of the canvas: the picture at a chosen size, drawn offscreen with the canvas's
// view (fitted again to the image's shape when the user has not moved it), and its colour key.

#include "render/overlay_renderer.h"
#include "render/scatter_renderer.h"
#include "ui/canvas.h"
#include "ui/ui_context.h"

namespace sepal::ui {

/// Writes request.path; errors go to the log (the app keeps running). Needs the GL context.
void exportPicture(const PngRequest& request, UiContext& ctx, const Canvas& canvas,
                   render::ScatterRenderer& points, render::OverlayRenderer& overlay);

}  // namespace sepal::ui
