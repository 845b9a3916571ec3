#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/color/palette.h"
#include "core/common/error.h"
#include "core/raster/annotate.h"
#include "core/raster/box_plots.h"
#include "core/raster/state_heatmap.h"
#include "core/raster/text.h"

namespace sepal::raster {
namespace {

const color::Rgba8 kWhite{255, 255, 255, 255};

/// Two groups of five samples, one population each row of `rows` (values per sample).
BoxPlotInput twoGroups(const std::vector<std::vector<double>>& rows) {
    BoxPlotInput in;
    in.groups = {"unstim", "stim"};
    for (size_t j = 0; j < rows.at(0).size(); ++j) {
        in.samples.push_back("s" + std::to_string(j));
        in.sampleGroups.push_back(j < rows[0].size() / 2 ? "unstim" : "stim");
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        in.populations.push_back("population " + std::to_string(r));
        in.frequencies.insert(in.frequencies.end(), rows[r].begin(), rows[r].end());
    }
    return in;
}

bool greyish(color::Rgba8 c) {
    return std::max({c.r, c.g, c.b}) - std::min({c.r, c.g, c.b}) <= 10;
}

size_t inked(const Image& im, int x0, int y0, int x1, int y1, color::Rgba8 background) {
    size_t n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) n += !(im.at(x, y) == background);
    return n;
}

TEST(BoxPlots, QuartilesAreRsTypeSevenAndWhiskersStopWithinOneAndAHalfBoxes) {
    const BoxStats b = boxStats({9, 1, 2, 3, 4, 5, 6, 7, 8, 100, NAN});
    EXPECT_EQ(b.n, 10u);
    // Positions (n - 1) p = 2.25, 4.5, 6.75 among 1..9, 100.
    EXPECT_DOUBLE_EQ(b.q1, 3.25);
    EXPECT_DOUBLE_EQ(b.median, 5.5);
    EXPECT_DOUBLE_EQ(b.q3, 7.75);
    EXPECT_DOUBLE_EQ(b.lowWhisker, 1.0);
    EXPECT_DOUBLE_EQ(b.highWhisker, 9.0);  // 100 lies beyond 7.75 + 1.5 * 4.5
    const BoxStats one = boxStats({4});
    EXPECT_DOUBLE_EQ(one.q1, 4.0);
    EXPECT_DOUBLE_EQ(one.highWhisker, 4.0);
    const BoxStats none = boxStats({NAN, INFINITY});
    EXPECT_EQ(none.n, 0u);
    EXPECT_TRUE(std::isnan(none.median));
}

TEST(BoxPlots, NiceTicksEncloseTheRangeInRoundSteps) {
    EXPECT_EQ(niceTicks(27.6, 38.7), (std::vector<double>{25, 30, 35, 40}));
    const std::vector<double> small = niceTicks(0.41, 0.73);
    ASSERT_EQ(small.size(), 5u);
    EXPECT_NEAR(small.front(), 0.4, 1e-12);
    EXPECT_NEAR(small.back(), 0.8, 1e-12);
    EXPECT_EQ(formatTick(small[2]), "0.6");
    EXPECT_EQ(niceTicks(0, 0), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
    EXPECT_TRUE(niceTicks(NAN, 1).empty());
}

TEST(BoxPlots, ThePictureGrowsWithThePopulations) {
    const std::vector<double> row = {1, 2, 3, 4, 5, 6};
    const Image one = renderBoxPlots(twoGroups({row}));
    const Image three = renderBoxPlots(twoGroups({row, row, row}));
    const Image twelve = renderBoxPlots(twoGroups(std::vector(12, row)));
    EXPECT_GT(three.width, one.width);
    EXPECT_EQ(three.height, one.height);
    EXPECT_GT(twelve.height, three.height);
    const BoxPlotLayout layout = boxPlotLayout(twoGroups(std::vector(12, row)));
    EXPECT_EQ(layout.columns, 4);  // 3 rows of 4 rather than 5 + 5 + 2
    EXPECT_EQ(layout.panels[4].left, layout.panels[0].left);
    EXPECT_GT(layout.panels[4].top, layout.panels[0].top);
    EXPECT_EQ(twelve.width, layout.width);
    EXPECT_EQ(twelve.height, layout.height);
}

TEST(BoxPlots, TheMedianLineSitsOnItsValuesRowInTheGroupsColour) {
    // unstim: 10..50 (median 30, quartiles 20 and 40); stim: 60..100 (median 80).
    BoxPlotInput in = twoGroups({{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}});
    const Image im = renderBoxPlots(in, true);
    const BoxPanelLayout p = boxPlotLayout(in).panels[0];
    EXPECT_LE(p.lo, 10.0);
    EXPECT_GE(p.hi, 100.0);
    EXPECT_GT(p.yLo, p.yHi);  // values grow upwards
    // Away from the dots (jittered within 0.55 of the half width), inside the box's edge.
    const int off = int(0.85 * p.boxHalfWidth);
    for (size_t g = 0; g < 2; ++g) {
        const double median = g == 0 ? 30 : 80;
        const int x = p.groupCenter[g] + off, row = int(std::lround(p.rowOf(median)));
        EXPECT_EQ(im.at(x, row), color::paletteColor(g)) << "group " << g;
        // Between the median and the upper quartile: the box's pale fill, not its colour.
        const int inside = int(std::lround(p.rowOf(median + 5)));
        EXPECT_LT(inside, row - 4);
        EXPECT_NE(im.at(x, inside), color::paletteColor(g));
        EXPECT_NE(im.at(x, inside), kWhite);
        // Above the upper whisker's end: nothing of the box.
        const int above = int(std::lround(p.rowOf(median + 25)));
        EXPECT_FALSE(im.at(x, above) == color::paletteColor(g));
    }
    // The groups take their colours in the order given, not in the samples' order.
    in.groups = {"stim", "unstim"};
    const Image swapped = renderBoxPlots(in, true);
    const BoxPanelLayout q = boxPlotLayout(in).panels[0];
    EXPECT_EQ(swapped.at(q.groupCenter[0] + off, int(std::lround(q.rowOf(80)))),
              color::paletteColor(0));
    // Unless each group's colour is given: a condition keeps its colour as the app gives it
    // (its place among the levels in sorted order), whichever of the two is drawn first.
    in.groups = {"unstim", "stim"};
    in.groupColours = {1, 0};
    const Image kept = renderBoxPlots(in, true);
    const BoxPanelLayout k = boxPlotLayout(in).panels[0];
    EXPECT_EQ(kept.at(k.groupCenter[0] + off, int(std::lround(k.rowOf(30)))),
              color::paletteColor(1));
    EXPECT_EQ(kept.at(k.groupCenter[1] + off, int(std::lround(k.rowOf(80)))),
              color::paletteColor(0));
}

TEST(BoxPlots, PairedSamplesAreJoinedByGreyLinesAndOnlyThen) {
    // Three patients, each once a group, rising from unstim to stim.
    BoxPlotInput in = twoGroups({{10, 20, 30, 40, 50, 60}});
    const BoxPanelLayout p = boxPlotLayout(in).panels[0];
    const int x0 = p.groupCenter[0] + p.boxHalfWidth + 6;
    const int x1 = p.groupCenter[1] - p.boxHalfWidth - 6;
    ASSERT_GT(x1, x0 + 20);
    const auto greyBetween = [&](const Image& im) {
        const color::Rgba8 background = im.at(0, 0),
                           grid = im.at(x0, int(std::lround(p.rowOf(p.ticks[1]))));
        size_t n = 0;
        for (int y = p.plotTop; y < p.plotBottom - 2; ++y)
            for (int x = x0; x < x1; ++x) {
                const color::Rgba8 c = im.at(x, y);
                n += !(c == background) && !(c == grid) && greyish(c);
            }
        return n;
    };
    for (bool light : {true, false}) {
        EXPECT_EQ(greyBetween(renderBoxPlots(in, light)), 0u) << "unpaired, light " << light;
        BoxPlotInput paired = in;
        paired.pairing = {"P1", "P2", "P3", "P1", "P2", "P3"};
        // Each line crosses the gap: at least its length in pixels.
        EXPECT_GT(greyBetween(renderBoxPlots(paired, light)), size_t(3 * (x1 - x0)))
            << "paired, light " << light;
    }
}

TEST(BoxPlots, ANotANumberSampleDrawsNothingAndSignificanceShowsInTheTitle) {
    BoxPlotInput in = twoGroups({{3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6}});
    BoxPlotInput more = in;
    // A seventh sample, NaN in every population: the same picture.
    more.samples.push_back("empty");
    more.sampleGroups.push_back("stim");
    more.frequencies = {3, 4, 5, 6, 7, 8, NAN, 1, 2, 3, 4, 5, 6, NAN};
    const Image a = renderBoxPlots(in), b = renderBoxPlots(more);
    EXPECT_EQ(a.pixels, b.pixels);
    // A population with no value at all still gets its (empty) panel.
    more.frequencies.assign(14, NAN);
    EXPECT_EQ(renderBoxPlots(more).width, a.width);

    // The same name, significant: a bold title with a star, more ink over the panel.
    in.populations = {"B cells", "B cells"};
    in.subtitles = {"logFC 1.32, FDR 0.002", "logFC 0.01, FDR 0.9"};
    in.significant = {true, false};
    const Image flagged = renderBoxPlots(in, true);
    const BoxPlotLayout layout = boxPlotLayout(in);
    const int line = textHeight(2);
    const auto titleInk = [&](const BoxPanelLayout& p) {
        return inked(flagged, p.left, p.top, p.left + 440, p.top + line, kWhite);
    };
    EXPECT_GT(titleInk(layout.panels[0]), titleInk(layout.panels[1]) * 5 / 4);
    // The subtitles take a line under the names.
    EXPECT_GT(layout.panels[0].plotTop,
              boxPlotLayout(twoGroups({{3, 4, 5, 6, 7, 8}})).panels[0].plotTop);
}

TEST(BoxPlots, InconsistentInputIsRefused) {
    const BoxPlotInput good = twoGroups({{1, 2, 3, 4}});
    EXPECT_NO_THROW(renderBoxPlots(good));
    const auto refuses = [&](const char* what, auto change) {
        SCOPED_TRACE(what);
        BoxPlotInput in = good;
        change(in);
        EXPECT_THROW(boxPlotLayout(in), InputError);
        EXPECT_THROW(renderBoxPlots(in), InputError);
    };
    refuses("a frequency short", [](BoxPlotInput& in) { in.frequencies.pop_back(); });
    refuses("a group short", [](BoxPlotInput& in) { in.sampleGroups.pop_back(); });
    refuses("two pairing keys", [](BoxPlotInput& in) { in.pairing = {"a", "b"}; });
    refuses("two subtitles", [](BoxPlotInput& in) { in.subtitles = {"x", "y"}; });
    refuses("two flags", [](BoxPlotInput& in) { in.significant = {true, false}; });
    refuses("an unknown group", [](BoxPlotInput& in) { in.sampleGroups[0] = "healthy"; });
    refuses("a group twice", [](BoxPlotInput& in) { in.groups = {"stim", "stim", "unstim"}; });
    refuses("no groups", [](BoxPlotInput& in) { in.groups.clear(); });
    refuses("no populations", [](BoxPlotInput& in) {
        in.populations.clear();
        in.frequencies.clear();
    });
}

/// A 2 x 3 state heatmap: logFC +2 (significant), -2 (not), NaN; 0.1, -0.5 (significant), 0.
StateHeatmapInput smallState() {
    StateHeatmapInput in;
    in.populations = {"CD4 T cells", "B cells"};
    in.markers = {"pSTAT5", "pS6", "pERK"};
    in.logFC = {2, -2, NAN, 0.1, -0.5, 0};
    in.pAdjusted = {0.001, 0.2, NAN, 0.9, 0.01, 1};
    return in;
}

TEST(StateHeatmap, CellsAreRedUpBlueDownGreyUntestedAndSignificantOnesCarryADot) {
    const StateHeatmapInput in = smallState();
    const StateHeatmapLayout L = stateHeatmapLayout(in);
    EXPECT_DOUBLE_EQ(L.limit, 2.0);
    for (bool light : {false, true}) {
        const Image im = renderStateHeatmap(in, light);
        EXPECT_EQ(im.width, L.width);
        const auto corner = [&](int r, int c) {
            return im.at(L.gridLeft + c * L.cellWidth + 4, L.gridTop + r * L.cellHeight + 4);
        };
        const auto centre = [&](int r, int c) {
            return im.at(L.gridLeft + c * L.cellWidth + L.cellWidth / 2,
                         L.gridTop + r * L.cellHeight + L.cellHeight / 2);
        };
        const color::Rgba8 up = corner(0, 0), down = corner(0, 1), untested = corner(0, 2);
        EXPECT_GT(up.r, up.b + 100);
        EXPECT_GT(down.b, down.r + 100);
        EXPECT_EQ(untested, (color::Rgba8{150, 150, 150, 255}));
        // Near zero: pale, neither clearly red nor blue.
        const color::Rgba8 zero = corner(1, 2);
        EXPECT_LT(std::abs(int(zero.r) - int(zero.b)), 20);
        EXPECT_GT(zero.g, 180);
        // The dot: in significant cells only (white on the dark red, dark on the pale blue).
        EXPECT_NE(centre(0, 0), up);
        EXPECT_GT(centre(0, 0).g, 200);
        EXPECT_EQ(centre(0, 1), down);
        EXPECT_EQ(centre(0, 2), untested);
        EXPECT_EQ(centre(1, 0), corner(1, 0));
        EXPECT_NE(centre(1, 1), corner(1, 1));
        EXPECT_LT(centre(1, 1).g, 60);
        // The background: dark like the canvas, or white.
        EXPECT_EQ(im.at(0, 0) == kWhite, light);
    }
    // Without p-values, no cell carries a mark.
    StateHeatmapInput plain = in;
    plain.pAdjusted.clear();
    const Image im = renderStateHeatmap(plain, true);
    const int cx = L.gridLeft + L.cellWidth / 2, cy = L.gridTop + L.cellHeight / 2;
    EXPECT_EQ(im.at(cx, cy), im.at(L.gridLeft + 4, L.gridTop + 4));
    // A limit of 4 makes +2 a paler red.
    plain.limit = 4;
    const Image paler = renderStateHeatmap(plain, true);
    EXPECT_GT(paler.at(L.gridLeft + 4, L.gridTop + 4).g, im.at(L.gridLeft + 4, L.gridTop + 4).g);
}

TEST(StateHeatmap, LabelsSitAboveAndLeftOfTheGridAndItGrowsWithIt) {
    StateHeatmapInput in = smallState();
    const StateHeatmapLayout L = stateHeatmapLayout(in);
    const Image im = renderStateHeatmap(in, true);
    // Each marker's name reads upwards above its column; each population's name at its row.
    for (int c = 0; c < 3; ++c)
        EXPECT_GT(inked(im, L.gridLeft + c * L.cellWidth, L.gridTop - 8 - 40,
                        L.gridLeft + (c + 1) * L.cellWidth, L.gridTop - 8, kWhite),
                  40u);
    for (int r = 0; r < 2; ++r)
        EXPECT_GT(inked(im, 0, L.gridTop + r * L.cellHeight, L.gridLeft,
                        L.gridTop + (r + 1) * L.cellHeight, kWhite),
                  40u);
    // Longer names and more rows make room for themselves.
    in.markers[0] = "a much longer marker name";
    in.populations.push_back("classical monocytes");
    for (int c = 0; c < 3; ++c) in.logFC.push_back(1), in.pAdjusted.push_back(0.5);
    const StateHeatmapLayout M = stateHeatmapLayout(in);
    EXPECT_GT(M.gridTop, L.gridTop);
    EXPECT_GT(M.gridLeft, L.gridLeft);
    EXPECT_EQ(renderStateHeatmap(in).height, M.height);
}

TEST(StateHeatmap, InconsistentInputIsRefused) {
    StateHeatmapInput in = smallState();
    in.logFC.pop_back();
    EXPECT_THROW(renderStateHeatmap(in), InputError);
    in = smallState();
    in.pAdjusted = {0.1};
    EXPECT_THROW(renderStateHeatmap(in), InputError);
    in = smallState();
    in.limit = -1;
    EXPECT_THROW(stateHeatmapLayout(in), InputError);
    in = StateHeatmapInput{};
    EXPECT_THROW(renderStateHeatmap(in), InputError);
}

TEST(Text, UpwardsTextClimbsFromItsStart) {
    Image im(100, 200, kWhite);
    const std::string text = "pSTAT5";
    drawTextUpwards(im, 10, 150, text, color::Rgba8{0, 0, 0, 255}, 2);
    const int w = textWidth(text, 2), h = textHeight(2) + 2;
    EXPECT_GT(inked(im, 10, 150 - w, 10 + h, 151, kWhite), 100u);
    EXPECT_EQ(inked(im, 0, 0, 100, 200, kWhite), inked(im, 10, 150 - w, 10 + h, 151, kWhite));
}

}  // namespace
}  // namespace sepal::raster
