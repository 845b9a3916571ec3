#include "core/raster/annotate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/raster/text.h"

namespace sepal::raster {

std::string formatTick(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

std::vector<double> niceTicks(double lo, double hi, int target) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
    if (lo > hi) std::swap(lo, hi);
    if (hi - lo <= 1e-12 * std::max(std::abs(lo), std::abs(hi))) {
        const double half = lo != 0 ? std::abs(lo) * 0.1 : 1.0;
        lo -= half, hi += half;
    }
    const double raw = (hi - lo) / std::max(target, 1);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * power;
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * power >= raw * (1 - 1e-9)) {
            step = m * power;
            break;
        }
    // Ticks as whole multiples of the step, so that 0.1 + 0.2 prints as 0.3.
    const double first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
    std::vector<double> ticks;
    for (double k = first; k <= last + 0.5; ++k) ticks.push_back(k * step);
    return ticks;
}

int drawColorBar(Image& image, int x, int y, int barWidth, int barHeight, color::Colormap map,
                 color::ValueRange range, const std::string& title, color::Rgba8 textColor,
                 int textScale, bool reversed) {
    const int line = textHeight(textScale);
    drawText(image, x, y, title, textColor, textScale);
    const int top = y + line + 4;
    const auto table = color::colormapTable(map);
    for (int row = 0; row < barHeight; ++row) {
        float t = barHeight > 1 ? 1.0f - static_cast<float>(row) / (barHeight - 1) : 0.5f;
        if (reversed) t = 1.0f - t;
        image.fillRect(x, top + row, x + barWidth, top + row + 1,
                       table[static_cast<size_t>(t * 255.0f + 0.5f)]);
    }
    // A thin frame keeps the bar's ends visible on a background of the same colour.
    image.fillRect(x - 1, top - 1, x + barWidth + 1, top, textColor);
    image.fillRect(x - 1, top + barHeight, x + barWidth + 1, top + barHeight + 1, textColor);
    image.fillRect(x - 1, top, x, top + barHeight, textColor);
    image.fillRect(x + barWidth, top, x + barWidth + 1, top + barHeight, textColor);
    const std::string hi = formatTick(range.hi), lo = formatTick(range.lo);
    const int labelX = x + barWidth + 4;
    drawText(image, labelX, top, hi, textColor, textScale);
    drawText(image, labelX, top + barHeight - line + 2 * textScale, lo, textColor, textScale);
    return std::max(textWidth(title, textScale),
                    barWidth + 4 + std::max(textWidth(hi, textScale), textWidth(lo, textScale)));
}

namespace {
/// Rows of a legend: its line height, and how many entries it shows under maxHeight (the rest
/// become one "+N more" row).
struct LegendRows {
    int line;
    size_t shown;
};

LegendRows legendRows(size_t entries, int maxHeight, int textScale) {
    const int line = textHeight(textScale) + 2;
    const int rowsFit = std::max((maxHeight - (line + 2)) / line, 1);
    const size_t shown = entries <= static_cast<size_t>(rowsFit)
                             ? entries
                             : static_cast<size_t>(std::max(rowsFit - 1, 0));
    return {line, shown};
}
}  // namespace

int legendHeight(size_t entries, int maxHeight, int textScale) {
    const auto rows = legendRows(entries, maxHeight, textScale);
    return rows.line + 2 + rows.line * static_cast<int>(rows.shown + (rows.shown < entries));
}

int colorBarHeight(int barHeight, int textScale) {
    return textHeight(textScale) + 4 + barHeight + 2 * textScale;  // the low label overhangs
}

int drawLegend(Image& image, int x, int y, int maxHeight,
               const std::vector<std::pair<std::string, color::Rgba8>>& entries,
               const std::string& title, color::Rgba8 textColor, int textScale) {
    const auto [line, shown] = legendRows(entries.size(), maxHeight, textScale);
    drawText(image, x, y, title, textColor, textScale);
    int cy = y + line + 2;
    // A swatch as tall as the glyphs, a gap that grows with them.
    const int swatch = 8 * std::max(textScale, 1);
    for (size_t i = 0; i < shown; ++i) {
        const auto& [name, c] = entries[i];
        image.fillRect(x, cy, x + swatch, cy + swatch, color::Rgba8{c.r, c.g, c.b, 255});
        drawText(image, x + swatch + 4 * std::max(textScale, 1), cy, name, textColor, textScale);
        cy += line;
    }
    if (shown < entries.size()) {
        drawText(image, x, cy, "+" + std::to_string(entries.size() - shown) + " more", textColor,
                 textScale);
        cy += line;
    }
    return cy - y;
}

int textScaleFor(int height) {
    return std::max(1, (height + 200) / 400);
}

}  // namespace sepal::raster
