#include "core/raster/picture.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/color/palette.h"
#include "core/color/value_map.h"
#include "core/common/error.h"
#include "core/raster/annotate.h"
#include "core/raster/density.h"
#include "core/raster/viewport.h"

namespace sepal::raster {
namespace {

void checkSpec(size_t n, const PictureSpec& spec) {
    if (spec.width <= 0 || spec.height <= 0 || spec.width > 16384 || spec.height > 16384)
        throw InputError("picture size " + std::to_string(spec.width) + "x" +
                         std::to_string(spec.height) +
                         " is not allowed: use 1 to 16384 pixels a side");
    if (spec.colorBy == ColorBy::Values && spec.values.size() != n)
        throw InputError("colouring by values needs one value per point (" + std::to_string(n) +
                         "), got " + std::to_string(spec.values.size()));
    if (spec.colorBy == ColorBy::Labels && spec.codes.size() != n)
        throw InputError("colouring by labels needs one label per point (" + std::to_string(n) +
                         "), got " + std::to_string(spec.codes.size()));
}

}  // namespace

Image renderPicture(const float* xy, size_t n, const PictureSpec& spec) {
    checkSpec(n, spec);
    Image image(spec.width, spec.height, spec.background);
    const bool annotated = spec.colorBy != ColorBy::Uniform && spec.width >= 200;
    int textScale = textScaleFor(spec.width, spec.height);
    int panel = annotated ? std::max(spec.width / 5, 60 * textScale + 40) : 0;
    // The key (a legend, or a colour bar's title) as wide as its text, up to two fifths of the
    // picture (fitLegend), so that nothing runs off the edge; what is still too wide is shortened
    // (drawLegend the names, the title here in the middle).
    std::vector<std::pair<std::string, color::Rgba8>> entries;
    std::string title =
        spec.colorBy == ColorBy::Density && spec.title.empty() ? "density (log)" : spec.title;
    int legendLimit = 0;
    if (annotated) {
        if (spec.colorBy == ColorBy::Labels) {
            for (size_t c = 0; c < spec.categories.size(); ++c)
                entries.emplace_back(spec.categories[c], color::paletteColor(c));
            if (std::any_of(spec.codes.begin(), spec.codes.end(), [](int32_t c) { return c < 0; }))
                entries.emplace_back("(missing)", color::kMissingColor);
        }
        const int margin = 24;
        const LegendFit fit = fitLegend(entries, title, textScale, spec.width - margin);
        textScale = fit.scale;
        panel = std::max(panel, fit.width + margin);
        legendLimit = panel - margin;
        title = elideMiddle(title, legendLimit, textScale);
    }
    const int plotWidth = std::max(spec.width - panel, 1);
    const Viewport view = fitViewport(xy, n, 0, 0, plotWidth, spec.height, 0.04);
    const int panelX = plotWidth + 8;
    const int panelY = spec.height / 10;
    const int barHeight = spec.height / 2;
    const int barWidth = std::max(spec.width / 60, 8);

    std::vector<color::Rgba8> colors;
    switch (spec.colorBy) {
        case ColorBy::Uniform:
            colors = {spec.foreground};
            break;
        case ColorBy::Values: {
            const auto range =
                color::percentileRange(spec.values.data(), n, 1, spec.loPercent, spec.hiPercent);
            colors = color::mapValues(spec.values.data(), n, 1, range, spec.map);
            drawPoints(image, view, xy, n, colors.data(), colors.size(), spec.scatter);
            if (annotated)
                drawColorBar(image, panelX, panelY, barWidth, barHeight, spec.map, range, title,
                             spec.foreground, textScale);
            return image;
        }
        case ColorBy::Density: {
            float top = 0.0f;
            const auto density = binnedLogDensity(xy, n, {}, top);
            // The app's scale: log cells per bin, from none to the fullest bin (the key's title
            // is short: the picture's margin is narrower than the app's key).
            const color::ValueRange range{0.0f, std::max(top, 1e-6f)};
            colors = color::mapValues(density.data(), n, 1, range, spec.map);
            drawPoints(image, view, xy, n, colors.data(), colors.size(), spec.scatter);
            if (annotated)
                drawColorBar(image, panelX, panelY, barWidth, barHeight, spec.map, range, title,
                             spec.foreground, textScale);
            return image;
        }
        case ColorBy::Labels: {
            colors.resize(n);
            for (size_t i = 0; i < n; ++i)
                colors[i] = spec.codes[i] < 0
                                ? color::kMissingColor
                                : color::paletteColor(static_cast<size_t>(spec.codes[i]));
            drawPoints(image, view, xy, n, colors.data(), colors.size(), spec.scatter);
            if (annotated)
                drawLegend(image, panelX, panelY, spec.height - panelY - 10, entries, title,
                           spec.foreground, textScale, legendLimit);
            return image;
        }
    }
    drawPoints(image, view, xy, n, colors.data(), colors.size(), spec.scatter);
    return image;
}

}  // namespace sepal::raster
