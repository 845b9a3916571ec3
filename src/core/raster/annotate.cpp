#include "core/raster/annotate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/common/text.h"
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

/// Pixels from a legend row's left edge to its name: the swatch and the gap after it.
int swatchSpan(int textScale) {
    return 12 * std::max(textScale, 1);
}

}  // namespace

int legendHeight(size_t entries, int maxHeight, int textScale) {
    const auto rows = legendRows(entries, maxHeight, textScale);
    return rows.line + 2 + rows.line * static_cast<int>(rows.shown + (rows.shown < entries));
}

int colorBarHeight(int barHeight, int textScale) {
    return textHeight(textScale) + 4 + barHeight + 2 * textScale;  // the low label overhangs
}

int legendWidth(const std::vector<std::pair<std::string, color::Rgba8>>& entries,
                const std::string& title, int textScale) {
    int widest = textWidth(title, textScale);
    for (const auto& entry : entries)
        widest = std::max(widest, swatchSpan(textScale) + textWidth(entry.first, textScale));
    return widest;
}

LegendFit fitLegend(const std::vector<std::pair<std::string, color::Rgba8>>& entries,
                    const std::string& title, int textScale, int pictureWidth) {
    const int largest = pictureWidth * 2 / 5, smallest = std::max(1, textScale - 1);
    LegendFit fit{textScale, legendWidth(entries, title, textScale)};
    while (fit.scale > smallest && fit.width > largest)
        --fit.scale, fit.width = legendWidth(entries, title, fit.scale);
    fit.width = std::min(fit.width, largest);
    return fit;
}

std::string elideMiddle(const std::string& text, int width, int textScale) {
    return sepal::elideMiddle(
        text, width, [&](const std::string& t) { return textWidth(t, textScale); },
        textHasFont() ? "\u2026" : "...");
}

std::vector<std::string> fitNames(const std::vector<std::string>& names, int width, int textScale) {
    const std::string ellipsis = textHasFont() ? "\u2026" : "...";
    // What the names too wide share (a short "(missing)" beside them shares nothing with them).
    std::vector<std::string> wide;
    for (const auto& name : names)
        if (textWidth(name, textScale) > width) wide.push_back(name);
    const size_t start = sharedWordStart(wide), end = sharedWordEnd(wide);
    std::vector<std::string> out;
    for (const auto& name : names) {
        if (textWidth(name, textScale) <= width) {
            out.push_back(name);
            continue;
        }
        // What tells this name from the others, the shared ends dropped one after the other
        // (a name that is all shared keeps its own middle).
        const size_t from = start < name.size() ? start : 0;
        const size_t to = end < name.size() - from ? name.size() - end : name.size();
        const std::string noEnd = name.substr(0, to) + (to < name.size() ? ellipsis : "");
        if (textWidth(noEnd, textScale) <= width) {
            out.push_back(noEnd);
            continue;
        }
        const std::string core = name.substr(from, to - from);
        const std::string left = from > 0 ? ellipsis : "", right = to < name.size() ? ellipsis : "";
        const int room = width - textWidth(left + right, textScale);
        out.push_back(room > 0 ? left + elideMiddle(core, room, textScale) + right
                               : elideMiddle(name, width, textScale));
    }
    return out;
}

int drawLegend(Image& image, int x, int y, int maxHeight,
               const std::vector<std::pair<std::string, color::Rgba8>>& entries,
               const std::string& title, color::Rgba8 textColor, int textScale, int maxWidth) {
    const auto [line, shown] = legendRows(entries.size(), maxHeight, textScale);
    std::vector<std::string> names;
    for (const auto& entry : entries) names.push_back(entry.first);
    if (maxWidth > 0) names = fitNames(names, maxWidth - swatchSpan(textScale), textScale);
    drawText(image, x, y, maxWidth > 0 ? elideMiddle(title, maxWidth, textScale) : title, textColor,
             textScale);
    int cy = y + line + 2;
    // A swatch as tall as the glyphs, a gap that grows with them.
    const int swatch = 8 * std::max(textScale, 1);
    for (size_t i = 0; i < shown; ++i) {
        const color::Rgba8 c = entries[i].second;
        image.fillRect(x, cy, x + swatch, cy + swatch, color::Rgba8{c.r, c.g, c.b, 255});
        drawText(image, x + swatchSpan(textScale), cy, names[i], textColor, textScale);
        cy += line;
    }
    if (shown < entries.size()) {
        drawText(image, x, cy, "+" + std::to_string(entries.size() - shown) + " more", textColor,
                 textScale);
        cy += line;
    }
    return cy - y;
}

int textScaleFor(int width, int height) {
    return std::max(1, (std::min(width, height) + 200) / 400);
}

}  // namespace sepal::raster
