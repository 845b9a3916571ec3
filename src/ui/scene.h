#pragma once
// Draws the picture (points, landmark graph, landmarks) for the window and for PNG exports.

#include <set>

#include "app/workspace.h"
#include "render/camera.h"
#include "render/overlay_renderer.h"
#include "render/point_layer.h"
#include "render/scatter_renderer.h"

namespace sepal::ui {

/// What decorates the landmarks.
struct SceneMarks {
    const std::set<size_t>* selection = nullptr;  ///< drawn highlighted
    int hovered = -1;                             ///< drawn with a ring
    render::PointLayer* layer = nullptr;          ///< show this cached layer instead of drawing
    bool landmarks = true;  ///< false: no landmarks whatever the view says (exported pictures)
    bool graph = true;      ///< false: no landmark graph whatever the view says
    /// True: landmarks and graph as the two above say, shown or hidden on the canvas (an
    /// export's ticks decide alone); false: only where the view shows them too.
    bool chosen = false;
};

/// Draws into the bound framebuffer, whose viewport covers camera's area at `scale` framebuffer
/// pixels per logical pixel.
void drawScene(const app::Workspace& ws, const render::Camera& camera, float scale,
               render::ScatterRenderer& points, render::OverlayRenderer& overlay,
               const SceneMarks& marks);

}  // namespace sepal::ui
