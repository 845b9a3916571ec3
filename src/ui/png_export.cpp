#include "ui/png_export.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/color/colormap.h"
#include "core/raster/annotate.h"
#include "core/raster/png.h"
#include "core/raster/text.h"
#include "render/capture.h"
#include "ui/scene.h"
#include "ui/small_multiples.h"

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
    k.scale = raster::textScaleFor(width, height);
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

/// Each small-multiple panel's frame and title on the exported picture (logical pixels times
/// `scale`), as the canvas draws them over its panels.
void drawPanelTitles(raster::Image& picture, const std::vector<MultiplePanel>& panels, float scale,
                     bool light) {
    const color::Rgba8 frame = light ? color::Rgba8{170, 170, 180, 255}
                                     : color::Rgba8{90, 95, 110, 255},
                       text =
                           light ? color::Rgba8{25, 25, 30, 255} : color::Rgba8{220, 220, 230, 255};
    const int textScale = raster::textScaleFor(picture.width, picture.height);
    for (const MultiplePanel& p : panels) {
        // The box [x0, x1) x [y0, y1), its edges `line` pixels wide inside it.
        const int x0 = int(std::lround(p.x * scale)), y0 = int(std::lround(p.y * scale));
        const int x1 = int(std::lround((p.x + p.width) * scale));
        const int y1 = int(std::lround((p.y + p.height) * scale));
        const int line = std::max(1, int(std::lround(scale)));
        picture.fillRect(x0, y0, x1, y0 + line, frame);
        picture.fillRect(x0, y1 - line, x1, y1, frame);
        picture.fillRect(x0, y0, x0 + line, y1, frame);
        picture.fillRect(x1 - line, y0, x1, y1, frame);
        const int room = x1 - x0 - 16 * textScale;
        raster::drawText(picture, x0 + 8 * textScale, y0 + 6 * textScale,
                         raster::elideMiddle(p.title, room, textScale), text, textScale);
    }
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
        // Small multiples as the canvas shows them: each panel's samples in its part of the
        // image (the picture was one overlay of every sample).
        const std::vector<MultiplePanel> panels =
            smallMultiplePanels(ws.state(), cam.width(), cam.height());
        if (panels.empty()) {
            SceneMarks marks;
            marks.landmarks = request.landmarks;
            marks.graph = request.graph;
            marks.chosen = true;  // the export's ticks, whether the canvas shows landmarks or not
            drawScene(ws, cam, scale, points, overlay, marks);
        }
        const auto& view = ws.state().view;
        for (const MultiplePanel& p : panels) {
            glViewport(int(std::lround(p.x * scale)),
                       request.height - int(std::lround((p.y + p.height) * scale)),
                       int(std::lround(p.width * scale)), int(std::lround(p.height * scale)));
            for (const auto& [first, count] : p.ranges)
                points.drawRange(panelCamera(cam, p), view.pointSize * scale, view.alpha, first,
                                 count);
        }
        glViewport(0, 0, request.width, request.height);
        auto image = target.read();
        render::OffscreenTarget::unbind();
        raster::Image picture;
        picture.width = image.width;
        picture.height = image.height;
        picture.pixels = std::move(image.rgba);
        drawPanelTitles(picture, panels, scale, request.light);
        if (request.key) annotate(picture, ws.colourKey(), request.light);
        raster::writePng(request.path, picture);
        ws.log(app::LogEntry::Info, "PNG written: " + request.path);
    } catch (const std::exception& e) {
        render::OffscreenTarget::unbind();
        ctx.error(std::string("PNG export failed: ") + e.what());
    }
}

}  // namespace sepal::ui
