#include "core/raster/box_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "core/color/palette.h"
#include "core/common/error.h"
#include "core/common/fnv_hash.h"
#include "core/raster/annotate.h"
#include "core/raster/shapes.h"
#include "core/raster/text.h"

namespace sepal::raster {

namespace {

// Geometry in units of one text scale step (the pictures draw at scale 2, as the heatmap): a
// panel is 220 x 200 units.
constexpr int kScale = 2;
constexpr int kPanelWidth = 220 * kScale, kPanelHeight = 200 * kScale;
constexpr int kPad = 8 * kScale;
constexpr int kInset = 5 * kScale;  // between the plot area's edges and the axis's ends

struct Theme {
    color::Rgba8 background, ink, faint, grid, pair;
};

Theme themeOf(bool light) {
    if (light)
        return {{255, 255, 255, 255},
                {20, 20, 24, 255},
                {105, 105, 112, 255},
                {232, 232, 236, 255},
                {165, 165, 170, 255}};
    return {{16, 17, 20, 255},
            {225, 228, 232, 255},
            {150, 154, 160, 255},
            {38, 40, 46, 255},
            {118, 121, 128, 255}};
}

/// Bold by drawing twice, one pixel apart (the font has one weight).
void drawBold(Image& image, int x, int y, const std::string& text, color::Rgba8 ink) {
    drawText(image, x, y, text, ink, kScale);
    drawText(image, x + 1, y, text, ink, kScale);
}

/// `text` shortened with "..." to at most `width` pixels.
std::string fitted(const std::string& text, int width) {
    if (textWidth(text, kScale) <= width) return text;
    std::string s = text;
    while (!s.empty() && textWidth(s + "...", kScale) > width) {
        // One character off the end: its UTF-8 continuation bytes, then its first byte.
        while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xc0) == 0x80) s.pop_back();
        if (!s.empty()) s.pop_back();
    }
    return s + "...";
}

/// Checks the input's sizes and names; returns each sample's group index.
std::vector<size_t> checkedGroups(const BoxPlotInput& in) {
    const size_t k = in.populations.size(), n = in.samples.size();
    const auto refuse = [](const std::string& what) { throw InputError("box plots: " + what); };
    if (k == 0 || n == 0) refuse("there is no population or no sample to draw");
    if (in.groups.empty()) refuse("no groups are given");
    if (in.sampleGroups.size() != n)
        refuse(std::to_string(in.sampleGroups.size()) + " sample groups for " + std::to_string(n) +
               " samples");
    if (!in.pairing.empty() && in.pairing.size() != n)
        refuse(std::to_string(in.pairing.size()) + " pairing keys for " + std::to_string(n) +
               " samples (give one a sample, or none)");
    if (in.frequencies.size() != k * n)
        refuse(std::to_string(in.frequencies.size()) + " frequencies for " + std::to_string(k) +
               " populations x " + std::to_string(n) + " samples");
    if (!in.subtitles.empty() && in.subtitles.size() != k)
        refuse(std::to_string(in.subtitles.size()) + " subtitles for " + std::to_string(k) +
               " populations");
    if (!in.significant.empty() && in.significant.size() != k)
        refuse(std::to_string(in.significant.size()) + " significance flags for " +
               std::to_string(k) + " populations");
    std::map<std::string, size_t> index;
    for (size_t g = 0; g < in.groups.size(); ++g)
        if (!index.emplace(in.groups[g], g).second)
            refuse("the group \"" + in.groups[g] + "\" is listed twice");
    std::vector<size_t> group(n);
    for (size_t j = 0; j < n; ++j) {
        const auto it = index.find(in.sampleGroups[j]);
        if (it == index.end())
            refuse("sample \"" + in.samples[j] + "\" is in group \"" + in.sampleGroups[j] +
                   "\", which is not among the groups drawn");
        group[j] = it->second;
    }
    return group;
}

bool anySubtitle(const BoxPlotInput& in) {
    return std::any_of(in.subtitles.begin(), in.subtitles.end(),
                       [](const std::string& s) { return !s.empty(); });
}

/// Whether every group's name fits under its box (else the legend alone names them).
bool groupNamesFit(const BoxPlotInput& in, int slot) {
    return std::all_of(in.groups.begin(), in.groups.end(), [&](const std::string& g) {
        return textWidth(g, kScale) <= slot - 2 * kScale;
    });
}

/// The width of the y axis's tick labels in every panel.
int tickLabelWidth(const std::vector<std::vector<double>>& ticks) {
    int w = 0;
    for (const auto& t : ticks)
        for (double v : t) w = std::max(w, textWidth(formatTick(v), kScale));
    return w;
}

/// The legend's width: a dot and each group's name, the title, the notes under it.
int legendWidth(const BoxPlotInput& in, bool anySignificant) {
    const int line = textHeight(kScale);
    int w = textWidth(in.groupName, kScale);
    for (const auto& g : in.groups) w = std::max(w, line + textWidth(g, kScale));
    if (!in.pairing.empty())
        w = std::max(w, 2 * line + textWidth("same " + in.pairingName, kScale));
    if (anySignificant) w = std::max(w, textWidth("* significant", kScale) + 1);
    return w;
}

}  // namespace

BoxStats boxStats(std::vector<double> values) {
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    BoxStats b;
    b.n = values.size();
    if (values.empty()) {
        b.lowWhisker = b.q1 = b.median = b.q3 = b.highWhisker = NAN;
        return b;
    }
    std::sort(values.begin(), values.end());
    // Type 7: the p-quantile at position (n - 1) p, interpolated between its neighbours.
    const auto quantile = [&](double p) {
        const double h = double(values.size() - 1) * p;
        const size_t i = size_t(std::floor(h));
        const size_t j = std::min(i + 1, values.size() - 1);
        return values[i] + (h - double(i)) * (values[j] - values[i]);
    };
    b.q1 = quantile(0.25);
    b.median = quantile(0.5);
    b.q3 = quantile(0.75);
    const double reach = 1.5 * (b.q3 - b.q1);
    b.lowWhisker = b.q1;
    b.highWhisker = b.q3;
    for (double v : values) {
        if (v >= b.q1 - reach) b.lowWhisker = std::min(b.lowWhisker, v);
        if (v <= b.q3 + reach) b.highWhisker = std::max(b.highWhisker, v);
    }
    return b;
}

BoxPlotLayout boxPlotLayout(const BoxPlotInput& in) {
    checkedGroups(in);
    const size_t k = in.populations.size(), n = in.samples.size(), groups = in.groups.size();
    const int line = textHeight(kScale);
    BoxPlotLayout out;
    if (in.columns > 0) {
        out.columns = std::min(in.columns, int(k));
    } else {
        const int rows = int((k + 4) / 5);
        out.columns = int((k + size_t(rows) - 1) / size_t(rows));
    }
    const int rows = int((k + size_t(out.columns) - 1) / size_t(out.columns));

    // Each panel's axis: nice ticks around its finite values.
    std::vector<std::vector<double>> ticks(k);
    for (size_t r = 0; r < k; ++r) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < n; ++j) {
            const double v = in.frequencies[r * n + j];
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        }
        if (!std::isfinite(lo)) lo = 0, hi = 1;
        ticks[r] = niceTicks(lo, hi, 4);
        // Frequencies are not negative: a flat zero row gets an axis from 0, not around it.
        if (lo >= 0 && ticks[r].front() < 0) ticks[r] = niceTicks(0, std::max(hi, 1.0), 4);
    }
    const int tickWidth = tickLabelWidth(ticks);

    const int titleHeight = line + (anySubtitle(in) ? line + 2 * kScale : 0) + 6 * kScale;
    const int plotWidth = kPanelWidth - tickWidth - 6 * kScale - 10 * kScale;
    const int slot = plotWidth / int(groups);
    const bool names = groupNamesFit(in, slot);
    const int below = names ? line + 6 * kScale : 2 * kScale;
    const int figureTitle = in.title.empty() ? 0 : line + kPad;
    const int axisName = line + 2 + kPad;  // the y axis's name, reading upwards, a row's left
    const int gridLeft = kPad + axisName, gridTop = kPad + figureTitle;
    const bool anySignificant =
        std::find(in.significant.begin(), in.significant.end(), true) != in.significant.end();
    out.width =
        gridLeft + out.columns * kPanelWidth + 2 * kPad + legendWidth(in, anySignificant) + kPad;
    out.height = gridTop + rows * kPanelHeight + kPad;

    for (size_t r = 0; r < k; ++r) {
        BoxPanelLayout p;
        p.left = gridLeft + int(r % size_t(out.columns)) * kPanelWidth;
        p.top = gridTop + int(r / size_t(out.columns)) * kPanelHeight;
        p.plotLeft = p.left + tickWidth + 6 * kScale;
        p.plotRight = p.plotLeft + plotWidth;
        p.plotTop = p.top + titleHeight;
        p.plotBottom = p.top + kPanelHeight - below - 6 * kScale;
        p.ticks = ticks[r];
        p.lo = p.ticks.front();
        p.hi = p.ticks.back();
        p.yLo = p.plotBottom - 1 - kInset;
        p.yHi = p.plotTop + kInset;
        p.boxHalfWidth = std::min(int(double(slot) * 0.3), 28 * kScale);
        for (size_t g = 0; g < groups; ++g)
            p.groupCenter.push_back(p.plotLeft + int(g) * slot + slot / 2);
        out.panels.push_back(std::move(p));
    }
    return out;
}

Image renderBoxPlots(const BoxPlotInput& in, bool light) {
    const std::vector<size_t> groupOf = checkedGroups(in);
    const BoxPlotLayout layout = boxPlotLayout(in);
    const size_t k = in.populations.size(), n = in.samples.size(), groups = in.groups.size();
    const int line = textHeight(kScale);
    const Theme theme = themeOf(light);
    Image image(layout.width, layout.height, theme.background);
    std::vector<color::Rgba8> groupColor;
    for (size_t g = 0; g < groups; ++g)
        groupColor.push_back(
            color::paletteColor(g < in.groupColours.size() ? in.groupColours[g] : g));
    const bool paired = !in.pairing.empty();
    const bool anySignificant =
        std::find(in.significant.begin(), in.significant.end(), true) != in.significant.end();

    if (!in.title.empty()) drawBold(image, layout.panels[0].left, kPad, in.title, theme.ink);

    // Per sample: its jitter, a fraction of the box's half width in [-0.55, 0.55]; paired
    // samples take their key's, so that a patient sits at the same offset in every group.
    std::vector<double> jitter(n);
    for (size_t j = 0; j < n; ++j) {
        const uint64_t h = fnv1a(paired ? "pair:" + in.pairing[j] : "sample:" + in.samples[j]);
        jitter[j] = (double(h % 10007) / 10006.0 - 0.5) * 1.1;
    }
    // The pairing keys' samples in group order, for the lines.
    std::map<std::string, std::vector<size_t>> pairs;
    if (paired)
        for (size_t j = 0; j < n; ++j) pairs[in.pairing[j]].push_back(j);
    for (auto& [key, members] : pairs)
        std::stable_sort(members.begin(), members.end(),
                         [&](size_t a, size_t b) { return groupOf[a] < groupOf[b]; });

    for (size_t r = 0; r < k; ++r) {
        const BoxPanelLayout& p = layout.panels[r];
        const double* freq = &in.frequencies[r * n];
        const int plotWidth = p.plotRight - p.plotLeft;
        const auto rowAt = [&](double v) { return int(std::lround(p.rowOf(v))); };

        // The title (bold with a star when significant) and subtitle, centred over the plot.
        const bool significant = !in.significant.empty() && in.significant[r];
        const std::string star = significant ? " *" : "";
        const std::string name =
            fitted(in.populations[r], kPanelWidth - 4 * kScale - 1 - textWidth(star, kScale)) +
            star;
        // Centred over the plot area as far as the panel's edges allow.
        const auto centred = [&](int width) {
            return std::clamp(p.plotLeft + (plotWidth - width) / 2, p.left + 2 * kScale,
                              p.left + kPanelWidth - 2 * kScale - width);
        };
        const int titleX = centred(textWidth(name, kScale) + (significant ? 1 : 0));
        if (significant)
            drawBold(image, titleX, p.top, name, theme.ink);
        else
            drawText(image, titleX, p.top, name, theme.ink, kScale);
        if (!in.subtitles.empty() && !in.subtitles[r].empty()) {
            const std::string sub = fitted(in.subtitles[r], kPanelWidth - 4 * kScale);
            drawText(image, centred(textWidth(sub, kScale)), p.top + line + 2 * kScale, sub,
                     theme.faint, kScale);
        }

        // Grid lines and tick labels, the axes on the left and bottom edges.
        for (double t : p.ticks) {
            const int y = rowAt(t);
            image.fillRect(p.plotLeft, y, p.plotRight, y + 1, theme.grid);
            image.fillRect(p.plotLeft - 3 * kScale, y, p.plotLeft, y + 1, theme.faint);
            const std::string label = formatTick(t);
            drawText(image, p.plotLeft - 4 * kScale - textWidth(label, kScale), y - line / 2, label,
                     theme.ink, kScale);
        }
        image.fillRect(p.plotLeft - 1, p.plotTop, p.plotLeft + 1, p.plotBottom, theme.faint);
        image.fillRect(p.plotLeft - 1, p.plotBottom - 1, p.plotRight, p.plotBottom + 1,
                       theme.faint);

        // The boxes: a tinted box between the quartiles, whiskers with caps, a thick median.
        for (size_t g = 0; g < groups; ++g) {
            std::vector<double> values;
            for (size_t j = 0; j < n; ++j)
                if (groupOf[j] == g) values.push_back(freq[j]);
            const BoxStats b = boxStats(std::move(values));
            const int cx = p.groupCenter[g], hw = p.boxHalfWidth;
            const color::Rgba8 c = groupColor[g];
            if (b.n == 0) continue;
            const int q1 = rowAt(b.q1), q3 = rowAt(b.q3), med = rowAt(b.median);
            const int lowW = rowAt(b.lowWhisker), highW = rowAt(b.highWhisker);
            const int caps = hw / 2;
            image.fillRect(cx - kScale / 2, highW, cx - kScale / 2 + kScale, q3, c);
            image.fillRect(cx - kScale / 2, q1, cx - kScale / 2 + kScale, lowW + 1, c);
            image.fillRect(cx - caps, highW, cx + caps + 1, highW + kScale, c);
            image.fillRect(cx - caps, lowW - kScale + 1, cx + caps + 1, lowW + 1, c);
            image.fillRect(cx - hw, q3, cx + hw + 1, q1 + 1, color::Rgba8{c.r, c.g, c.b, 56});
            image.fillRect(cx - hw, q3, cx + hw + 1, q3 + kScale, c);
            image.fillRect(cx - hw, q1 - kScale + 1, cx + hw + 1, q1 + 1, c);
            image.fillRect(cx - hw, q3, cx - hw + kScale, q1 + 1, c);
            image.fillRect(cx + hw + 1 - kScale, q3, cx + hw + 1, q1 + 1, c);
            image.fillRect(cx - hw, med - 1, cx + hw + 1, med + 2, c);
        }

        // The samples: grey lines joining a pairing key's dots, then the dots over them.
        const auto dotX = [&](size_t j) {
            return double(p.groupCenter[groupOf[j]]) + 0.5 + jitter[j] * double(p.boxHalfWidth);
        };
        const auto dotY = [&](size_t j) { return p.rowOf(freq[j]) + 0.5; };
        for (const auto& [key, members] : pairs) {
            size_t last = SIZE_MAX;
            for (size_t j : members) {
                if (!std::isfinite(freq[j])) continue;
                if (last != SIZE_MAX && groupOf[last] != groupOf[j])
                    drawSegment(image, dotX(last), dotY(last), dotX(j), dotY(j), 0.75 * kScale,
                                theme.pair);
                last = j;
            }
        }
        for (size_t j = 0; j < n; ++j) {
            if (!std::isfinite(freq[j])) continue;
            fillDisc(image, dotX(j), dotY(j), 2.5 * kScale + 1, theme.background);
            fillDisc(image, dotX(j), dotY(j), 2.5 * kScale, groupColor[groupOf[j]]);
        }

        // The groups' names under their boxes, where they fit.
        if (groupNamesFit(in, plotWidth / int(groups)))
            for (size_t g = 0; g < groups; ++g)
                drawText(image, p.groupCenter[g] - textWidth(in.groups[g], kScale) / 2,
                         p.plotBottom + 4 * kScale, in.groups[g], theme.ink, kScale);
    }

    // The y axis's name at the left of each row of panels, centred on the plot areas.
    for (size_t r = 0; r < k; r += size_t(layout.columns)) {
        const BoxPanelLayout& p = layout.panels[r];
        const int w = textWidth(in.valueName, kScale);
        drawTextUpwards(image, kPad, (p.plotTop + p.plotBottom + w) / 2, in.valueName, theme.ink,
                        kScale);
    }

    // The legend at the right, level with the first row's plot area.
    const BoxPanelLayout& first = layout.panels[0];
    const int lx = first.left + layout.columns * kPanelWidth + 2 * kPad;
    int ly = first.plotTop;
    drawText(image, lx, ly, in.groupName, theme.ink, kScale);
    ly += line + 4 * kScale;
    for (size_t g = 0; g < groups; ++g) {
        fillDisc(image, lx + line / 2.0, ly + line / 2.0, 3.0 * kScale, groupColor[g]);
        drawText(image, lx + line + 2 * kScale, ly, in.groups[g], theme.ink, kScale);
        ly += line + 4 * kScale;
    }
    if (paired) {
        ly += line / 2;
        drawSegment(image, lx + 1.0, ly + line / 2.0, lx + 1.6 * line, ly + line / 2.0,
                    0.75 * kScale, theme.pair);
        drawText(image, lx + 2 * line, ly, "same " + in.pairingName, theme.ink, kScale);
        ly += line + 4 * kScale;
    }
    if (anySignificant) {
        ly += paired ? 0 : line / 2;
        drawBold(image, lx, ly, "* significant", theme.ink);
    }
    return image;
}

}  // namespace sepal::raster
