#include "core/raster/state_heatmap.h"

#include <algorithm>
#include <cmath>

#include "core/color/colormap.h"
#include "core/common/error.h"
#include "core/raster/annotate.h"
#include "core/raster/shapes.h"
#include "core/raster/text.h"

namespace sepal::raster {

namespace {

constexpr int kHeatmapScale = 2;  // text scale, as the populations x markers heatmap
constexpr int kHeatmapPad = 16;
constexpr int kBarWidth = 24;
constexpr color::Rgba8 kUntested{150, 150, 150, 255};

/// The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten at or above v (v > 0).
double roundUp(double v) {
    const double power = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0})
        if (m * power >= v * (1 - 1e-9)) return m * power;
    return 10 * power;
}

void check(const StateHeatmapInput& in) {
    const size_t k = in.populations.size(), d = in.markers.size();
    const auto refuse = [](const std::string& what) { throw InputError("state heatmap: " + what); };
    if (k == 0 || d == 0) refuse("there is no population or no marker to draw");
    if (in.logFC.size() != k * d)
        refuse(std::to_string(in.logFC.size()) + " fold changes for " + std::to_string(k) +
               " populations x " + std::to_string(d) + " markers");
    if (!in.pAdjusted.empty() && in.pAdjusted.size() != k * d)
        refuse(std::to_string(in.pAdjusted.size()) + " adjusted p-values for " + std::to_string(k) +
               " populations x " + std::to_string(d) + " markers");
    if (!(in.limit >= 0) || !std::isfinite(in.limit))
        refuse("the colour limit must be positive, or 0 for the largest fold change");
}

/// The key's rows under the colour bar: a sample cell and what it means.
struct KeyRow {
    std::string text;
    bool mark;
};

std::vector<KeyRow> keyRows(const StateHeatmapInput& in) {
    std::vector<KeyRow> rows;
    if (!in.pAdjusted.empty()) rows.push_back({"adj. p < " + formatTick(in.alpha), true});
    const bool untested =
        std::any_of(in.logFC.begin(), in.logFC.end(), [](double v) { return !std::isfinite(v); });
    if (untested) rows.push_back({"not tested", false});
    return rows;
}

}  // namespace

StateHeatmapLayout stateHeatmapLayout(const StateHeatmapInput& in) {
    check(in);
    const int line = textHeight(kHeatmapScale);
    StateHeatmapLayout out;
    double largest = 0;
    for (double v : in.logFC)
        if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
    out.limit = in.limit > 0 ? in.limit : largest > 0 ? roundUp(largest) : 1.0;
    out.cellWidth = line + 12;
    out.cellHeight = line + 10;
    int nameWidth = 0, labelHeight = 0;
    for (const auto& r : in.populations)
        nameWidth = std::max(nameWidth, textWidth(r, kHeatmapScale));
    for (const auto& c : in.markers)
        labelHeight = std::max(labelHeight, textWidth(c, kHeatmapScale));
    const int title = in.title.empty() ? 0 : line + kHeatmapPad;
    out.gridLeft = kHeatmapPad + nameWidth + kHeatmapPad;
    out.gridTop = kHeatmapPad + title + labelHeight + 8;
    const int gridRight = out.gridLeft + int(in.markers.size()) * out.cellWidth;
    const int gridHeight = int(in.populations.size()) * out.cellHeight;
    // The key: the colour bar with its labels, the sample cells under it.
    const std::string lo = formatTick(-out.limit), hi = formatTick(out.limit);
    int keyWidth = std::max(
        textWidth("logFC", kHeatmapScale),
        kBarWidth + 4 + std::max(textWidth(lo, kHeatmapScale), textWidth(hi, kHeatmapScale)));
    const std::vector<KeyRow> rows = keyRows(in);
    for (const KeyRow& r : rows)
        keyWidth = std::max(keyWidth, out.cellWidth + 8 + textWidth(r.text, kHeatmapScale));
    const int barHeight = std::max(180, gridHeight - 3 * line);
    const int keyHeight =
        colorBarHeight(barHeight, kHeatmapScale) + int(rows.size()) * (out.cellHeight + 6) + line;
    out.width = gridRight + 2 * kHeatmapPad + keyWidth + kHeatmapPad;
    out.height = std::max(out.gridTop + gridHeight, out.gridTop + keyHeight) + kHeatmapPad;
    return out;
}

Image renderStateHeatmap(const StateHeatmapInput& in, bool light) {
    const StateHeatmapLayout L = stateHeatmapLayout(in);
    const size_t k = in.populations.size(), d = in.markers.size();
    const int line = textHeight(kHeatmapScale);
    const color::Rgba8 background =
        light ? color::Rgba8{255, 255, 255, 255} : color::Rgba8{16, 17, 20, 255};
    const color::Rgba8 ink =
        light ? color::Rgba8{20, 20, 24, 255} : color::Rgba8{225, 228, 232, 255};
    Image image(L.width, L.height, background);
    if (!in.title.empty()) {
        drawText(image, kHeatmapPad, kHeatmapPad, in.title, ink, kHeatmapScale);
        drawText(image, kHeatmapPad + 1, kHeatmapPad, in.title, ink, kHeatmapScale);
    }
    const int cw = L.cellWidth, ch = L.cellHeight;
    const double markRadius = std::min(cw, ch) * 0.16;
    // A cell: its colour inset by one pixel; the mark dark on light cells, white on dark ones.
    const auto drawCell = [&](int x, int y, color::Rgba8 c, bool mark) {
        image.fillRect(x + 1, y + 1, x + cw - 1, y + ch - 1, c);
        if (!mark) return;
        const double luma = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
        const color::Rgba8 dot =
            luma > 140 ? color::Rgba8{20, 20, 24, 255} : color::Rgba8{255, 255, 255, 255};
        fillDisc(image, x + cw / 2.0, y + ch / 2.0, markRadius, dot);
    };

    for (size_t c = 0; c < d; ++c)
        drawTextUpwards(image, L.gridLeft + int(c) * cw + (cw - line - 2) / 2, L.gridTop - 8,
                        in.markers[c], ink, kHeatmapScale);
    for (size_t r = 0; r < k; ++r) {
        const int y = L.gridTop + int(r) * ch;
        drawText(image, L.gridLeft - kHeatmapPad - textWidth(in.populations[r], kHeatmapScale),
                 y + (ch - line) / 2, in.populations[r], ink, kHeatmapScale);
        for (size_t c = 0; c < d; ++c) {
            const double v = in.logFC[r * d + c];
            const color::Rgba8 colour = std::isfinite(v)
                                            ? color::sampleColormap(color::Colormap::Coolwarm,
                                                                    float(0.5 + v / (2 * L.limit)))
                                            : kUntested;
            const bool mark =
                !in.pAdjusted.empty() && in.pAdjusted[r * d + c] < in.alpha && std::isfinite(v);
            drawCell(L.gridLeft + int(c) * cw, y, colour, mark);
        }
    }

    // The key: the colour bar from -limit (blue) to +limit (red), 0 labelled, then the mark
    // and the untested grey on sample cells.
    const int barLeft = L.gridLeft + int(d) * cw + 2 * kHeatmapPad;
    const int barHeight = std::max(180, int(k) * ch - 3 * line);
    drawColorBar(image, barLeft, L.gridTop, kBarWidth, barHeight, color::Colormap::Coolwarm,
                 color::ValueRange{float(-L.limit), float(L.limit)}, "logFC", ink, kHeatmapScale);
    const int middle = L.gridTop + line + 4 + barHeight / 2;
    drawText(image, barLeft + kBarWidth + 4, middle - line / 2, "0", ink, kHeatmapScale);
    int y = L.gridTop + colorBarHeight(barHeight, kHeatmapScale) + line;
    for (const KeyRow& row : keyRows(in)) {
        drawCell(barLeft - 1, y,
                 row.mark ? color::sampleColormap(color::Colormap::Coolwarm, 0.5f) : kUntested,
                 row.mark);
        drawText(image, barLeft + cw + 8, y + (ch - line) / 2, row.text, ink, kHeatmapScale);
        y += ch + 6;
    }
    return image;
}

}  // namespace sepal::raster
