#include "ui/png_export.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/color/colormap.h"
#include "core/raster/annotate.h"
#include "core/raster/png.h"
#include "core/raster/text.h"
#include "render/capture.h"
#include "ui/scene.h"

namespace sepal::ui {

namespace {
/// The colour key of an exported picture, laid out in its lower right corner as the canvas
/// shows it: the box (x, y, width, height; empty when there is no key) and what is drawn there.
struct PictureKey {
    int x = 0, y = 0, width = 0, height = 0;
    int scale = 1;      // text scale, with the picture's height
    int barHeight = 0;  // colour bar
    int maxHeight = 0;  // legend
    int maxWidth = 0;   // legend: names beyond it are shortened (raster::fitNames)
    std::vector<std::pair<std::string, color::Rgba8>> entries;
};

PictureKey layoutPictureKey(const app::ColourKey& key, int width, int height) {
    PictureKey k;
    k.scale = raster::textScaleFor(height);
    const int margin = 16 * k.scale;
    if (key.continuous) {
        k.width = 16 * k.scale + 8 * k.scale +
                  std::max({raster::textWidth(raster::formatTick(key.high), k.scale),
                            raster::textWidth(raster::formatTick(key.low), k.scale)});
        k.width = std::max(k.width, raster::textWidth(key.title, k.scale));
        k.barHeight = height / 4;
        k.height = raster::colorBarHeight(k.barHeight, k.scale);
    } else if (!key.legend.empty()) {
        for (const auto& e : key.legend)
            k.entries.push_back({e.name, {e.colour[0], e.colour[1], e.colour[2], 255}});
        // Beside the points, as sepal-cli's pictures lay it out.
        const raster::LegendFit fit = raster::fitLegend(k.entries, key.title, k.scale, width);
        k.scale = fit.scale;
        k.width = k.maxWidth = fit.width;
        k.maxHeight = height - 2 * margin;
        k.height = raster::legendHeight(k.entries.size(), k.maxHeight, k.scale);
    } else {
        return k;
    }
    k.x = width - k.width - margin;
    k.y = height - k.height - margin;
    return k;
}
void annotate(raster::Image& picture, const app::ColourKey& key, bool light) {
    const PictureKey k = layoutPictureKey(key, picture.width, picture.height);
    const color::Rgba8 text =
        light ? color::Rgba8{25, 25, 30, 255} : color::Rgba8{230, 230, 230, 255};
    if (key.continuous)
        raster::drawColorBar(picture, k.x, k.y, 16 * k.scale, k.barHeight,
                             color::colormapByName(key.map).value_or(color::Colormap::Viridis),
                             {key.low, key.high}, key.title, text, k.scale, key.reversed);
    else if (!k.entries.empty())
        raster::drawLegend(picture, k.x, k.y, k.maxHeight, k.entries, key.title, text, k.scale,
                           k.maxWidth);
}

}  // namespace

void exportPicture(const PngRequest& request, UiContext& ctx, const Canvas& canvas,
                   render::ScatterRenderer& points, render::OverlayRenderer& overlay) {
    auto& ws = ctx.workspace;
    const render::Camera& camera = ctx.camera;
    try {
        render::OffscreenTarget target(request.width, request.height);
        target.bind();
        if (request.light)
            glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
        else
            glClearColor(0.06f, 0.065f, 0.075f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        // Same view as the canvas, scaled so the canvas's content fills the image.
        render::Camera cam = camera;
        float scale = std::min(float(request.width) / camera.width(),
                               float(request.height) / camera.height());
        auto s = camera.state();
        cam.setViewport(float(request.width) / scale, float(request.height) / scale);
        cam.setState(s);
        // A view the user has not panned or zoomed since it was fitted is fitted again for the
        // image's shape, clear of the image's own key.
        if (canvas.showsFit(camera)) {
            PictureKey k = request.key
                               ? layoutPictureKey(ws.colourKey(), request.width, request.height)
                               : PictureKey{};
            float gap = k.width > 0 ? 8.0f : 0.0f;
            cam.fitClearOfCorner(canvas.pictureBounds(ctx),
                                 k.width > 0 ? float(request.width - k.x) / scale + gap : 0.0f,
                                 k.height > 0 ? float(request.height - k.y) / scale + gap : 0.0f);
        }
        SceneMarks marks;
        marks.landmarks = request.landmarks;
        marks.graph = request.graph;
        marks.chosen = true;  // the export's ticks, whether the canvas shows landmarks or not
        drawScene(ws, cam, scale, points, overlay, marks);
        auto image = target.read();
        render::OffscreenTarget::unbind();
        raster::Image picture;
        picture.width = image.width;
        picture.height = image.height;
        picture.pixels = std::move(image.rgba);
        if (request.key) annotate(picture, ws.colourKey(), request.light);
        raster::writePng(request.path, picture);
        ws.log(app::LogEntry::Info, "PNG written: " + request.path);
    } catch (const std::exception& e) {
        render::OffscreenTarget::unbind();
        ctx.error(std::string("PNG export failed: ") + e.what());
    }
}

}  // namespace sepal::ui
