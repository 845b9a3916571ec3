#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/color/palette.h"
#include "core/common/error.h"
#include "core/raster/annotate.h"
#include "core/raster/density.h"
#include "core/raster/picture.h"
#include "core/raster/png.h"
#include "core/raster/scatter.h"
#include "core/raster/text.h"
#include "core/raster/viewport.h"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace sepal::raster {
namespace {

const color::Rgba8 kWhite{255, 255, 255, 255};

bool isBackground(const Image& im, int x, int y) {
    return im.at(x, y) == kWhite;
}

size_t inkedPixels(const Image& im, int x0, int y0, int x1, int y1) {
    size_t count = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) count += !isBackground(im, x, y);
    return count;
}

TEST(Viewport, FitsPointsWithMarginsAndEqualScale) {
    const std::vector<float> xy = {-1, 0, 3, 0, 1, 1};
    const Viewport v = fitViewport(xy.data(), 3, 0, 0, 200, 100, 0.1);
    // x spans 4 units in 160 usable pixels, y spans 1 unit in 80: the tighter axis (x) wins.
    EXPECT_DOUBLE_EQ(v.scale, 40.0);
    EXPECT_NEAR(v.toPixelX(-1), 20.0, 1e-9);
    EXPECT_NEAR(v.toPixelX(3), 180.0, 1e-9);
    EXPECT_GT(v.toPixelY(0), v.toPixelY(1));  // y grows upward
    const float nan = std::nanf("");
    const std::vector<float> bad = {nan, 1, 2, 2};
    const Viewport one = fitViewport(bad.data(), 2, 0, 0, 100, 100);
    EXPECT_NEAR(one.toPixelX(2), 50.0, 1e-9);
}

TEST(Viewport, AFewStrayCellsDoNotShrinkThePicture) {
    // 10,000 cells in [-1, 1]^2 and one far out (a real flow file had one at y = -26 where
    // 99.9 % lay within [-9, 8.3]): the picture frames the cells, as the app's view does.
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> xy;
    for (int i = 0; i < 10000; ++i) xy.push_back(uniform(rng)), xy.push_back(uniform(rng));
    xy.push_back(0.0f), xy.push_back(-50.0f);
    const Viewport v = fitViewport(xy.data(), xy.size() / 2, 0, 0, 200, 200, 0.0);
    EXPECT_NEAR(v.scale, 100.0, 2.0);  // the cells' 2 units fill the 200 pixels
    EXPECT_NEAR(v.centerY, 0.0, 0.05);
    Extent e;
    EXPECT_TRUE(robustExtent(xy.data(), xy.size() / 2, e));
    EXPECT_GT(e.minY, -1.0);
    const float nan = std::nanf("");
    const std::vector<float> none = {nan, 0.0f};
    EXPECT_FALSE(robustExtent(none.data(), 1, e));
}

TEST(Scatter, InkLandsWhereThePointsAreAndNowhereElse) {
    Image im(100, 100, kWhite);
    const std::vector<float> xy = {0, 0, 10, 10};
    Viewport v = fitViewport(xy.data(), 2, 0, 0, 100, 100, 0.1);
    const color::Rgba8 red{200, 0, 0, 255};
    ScatterOptions options;
    options.pointRadius = 2.0f;
    drawPoints(im, v, xy.data(), 2, &red, 1, options);
    const int ax = static_cast<int>(v.toPixelX(0)), ay = static_cast<int>(v.toPixelY(0));
    const int bx = static_cast<int>(v.toPixelX(10)), by = static_cast<int>(v.toPixelY(10));
    EXPECT_FALSE(isBackground(im, ax, ay));
    EXPECT_FALSE(isBackground(im, bx, by));
    EXPECT_GT(im.at(ax, ay).r, im.at(ax, ay).g);  // reddish
    EXPECT_TRUE(isBackground(im, 50, 50));        // between them: nothing
    EXPECT_LE(inkedPixels(im, 0, 0, 100, 100), 2u * 49u);
}

TEST(Scatter, DenseRegionsDoNotSaturateToOneFlatColour) {
    // 20000 points in a Gaussian blob: with plain alpha blending the core would be a flat disc;
    // density-aware tone mapping keeps the core darker than the rim.
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> xy(40000);
    for (float& v : xy) v = normal(rng);
    Image im(120, 120, kWhite);
    const Viewport v = fitViewport(xy.data(), 20000, 0, 0, 120, 120, 0.02);
    const color::Rgba8 black{0, 0, 0, 255};
    drawPoints(im, v, xy.data(), 20000, &black, 1);
    const int cx = static_cast<int>(v.toPixelX(0)), cy = static_cast<int>(v.toPixelY(0));
    const int rx = static_cast<int>(v.toPixelX(2.2));
    EXPECT_LT(im.at(cx, cy).r, 40);                    // core nearly opaque
    EXPECT_GT(im.at(rx, cy).r, im.at(cx, cy).r + 30);  // rim visibly lighter
    EXPECT_LT(im.at(rx, cy).r, 255);                   // but drawn
}

TEST(Scatter, ColoursAverageInsteadOfTheLastPointWinning) {
    Image im(10, 10, kWhite);
    Viewport v;
    v.width = v.height = 10;
    v.scale = 1.0;
    std::vector<float> xy;
    std::vector<color::Rgba8> colors;
    for (int i = 0; i < 50; ++i) {
        xy.push_back(0.0f), xy.push_back(0.0f);
        colors.push_back(i % 2 ? color::Rgba8{255, 0, 0, 255} : color::Rgba8{0, 0, 255, 255});
    }
    ScatterOptions options;
    options.pointRadius = 0.5f;
    drawPoints(im, v, xy.data(), 50, colors.data(), colors.size(), options);
    const color::Rgba8 c = im.at(4, 4);
    EXPECT_NEAR(c.r, c.b, 20);
}

TEST(Density, LogCountsPerBinPeakInsideTheDenseCluster) {
    std::vector<float> xy;
    for (int i = 0; i < 500; ++i)
        xy.push_back(0.01f * (i % 10)), xy.push_back(0.01f * (i / 10 % 10));
    for (int i = 0; i < 20; ++i) xy.push_back(5.0f + i * 0.2f), xy.push_back(5.0f);
    xy.push_back(std::nanf("")), xy.push_back(0.0f);
    const size_t n = xy.size() / 2;
    float top = 0.0f;
    const auto d = binnedLogDensity(xy.data(), n, {}, top);
    EXPECT_GT(top, std::log1p(20.0f));  // some bin of the cluster holds more than 20 cells
    EXPECT_FLOAT_EQ(*std::max_element(d.begin(), d.begin() + 520), top);
    EXPECT_GT(d[0] / top, 0.5f);
    EXPECT_FLOAT_EQ(d[505], std::log1p(1.0f));  // alone in its bin
    EXPECT_TRUE(std::isnan(d.back()));
    // Only the counted cells make the bins' counts; every finite point still gets its bin's.
    std::vector<uint8_t> counted(n, 1);
    std::fill(counted.begin(), counted.begin() + 500, uint8_t(0));
    const auto outside = binnedLogDensity(xy.data(), n, counted, top);
    EXPECT_FLOAT_EQ(top, std::log1p(1.0f));
    EXPECT_FLOAT_EQ(outside[0], 0.0f);
    // Nothing counted: a top of 0, which the callers show as no density.
    std::fill(counted.begin(), counted.end(), uint8_t(0));
    binnedLogDensity(xy.data(), n, counted, top);
    EXPECT_FLOAT_EQ(top, 0.0f);
}

TEST(Density, APileOfMostCellsLeavesTheRestVisible) {
    // 36,000 cells on one spot (a coarse instrument's floor) and 1,000 spread out: on the log
    // scale a cell alone in its bin still takes log 2 / log 36,001 of it, a fifteenth (where a
    // linear scale would give it 1 / 36,000, indistinguishable from nothing).
    std::vector<float> xy(2 * 36000, 0.5f);
    for (int i = 0; i < 1000; ++i) xy.push_back(float(i % 40)), xy.push_back(float(i / 40));
    float top = 0.0f;
    const auto d = binnedLogDensity(xy.data(), xy.size() / 2, {}, top);
    EXPECT_FLOAT_EQ(top, std::log1p(36000.0f));
    EXPECT_NEAR(d.back() / top, std::log(2.0) / std::log(36001.0), 1e-6);
}

TEST(Density, AStrayCellDoesNotCoarsenTheBins) {
    // 20,000 cells in two clusters, then one cell a thousand times as far out (a bead, an
    // instrument glitch): the clusters keep their bins, and the stray is alone in its own.
    std::vector<float> xy;
    for (int i = 0; i < 20000; ++i) {
        const float cx = i % 2 ? 1.0f : -1.0f, t = 0.001f * float(i);
        xy.push_back(cx + 0.3f * std::sin(t * 7.0f) * std::cos(t)),
            xy.push_back(0.3f * std::sin(t));
    }
    float tidy = 0.0f, withStray = 0.0f;
    const auto before = binnedLogDensity(xy.data(), xy.size() / 2, {}, tidy);
    xy.push_back(1000.0f), xy.push_back(-800.0f);
    const auto after = binnedLogDensity(xy.data(), xy.size() / 2, {}, withStray);
    // Stretched over the stray, the grid put each cluster in one bin: a top of log(10,001) and
    // every cell of the clusters at it.
    // Now the grid reaches a tenth past the cells' robust extent towards the stray: bins at
    // most 1.1 x 1.1 times as large as without it (laid out from other edges, so cell by cell
    // the counts move a little), and the clusters keep as many levels of density.
    EXPECT_LT(withStray, tidy + 0.7f);
    EXPECT_FLOAT_EQ(after.back(), std::log1p(1.0f));
    const auto levels = [](std::vector<float> d) {
        std::sort(d.begin(), d.end());
        return size_t(std::unique(d.begin(), d.end()) - d.begin());
    };
    const size_t tidyLevels = levels(before);
    EXPECT_GT(levels({after.begin(), after.end() - 1}), tidyLevels * 2 / 3);
    EXPECT_GT(tidyLevels, 20u);
}

TEST(Text, DrawsGlyphsWithinTheirMeasuredBox) {
    Image im(200, 40, kWhite);
    const color::Rgba8 ink{0, 0, 0, 255};
    drawText(im, 5, 5, "CD45 0.5", ink, 2);
    const int w = textWidth("CD45 0.5", 2);
    EXPECT_GT(w, 40);
    EXPECT_GT(inkedPixels(im, 5, 5, 5 + w, 5 + textHeight(2)), 50u);
    EXPECT_EQ(inkedPixels(im, 5 + w + 2, 0, 200, 40), 0u);
}

// Keys are placed by their bottom edge: the measured heights must be the drawn ones.
TEST(Annotate, LegendAndColourBarHeightsAreWhatTheyDraw) {
    const color::Rgba8 ink{0, 0, 0, 255};
    for (size_t count : {1u, 5u, 40u}) {
        Image im(300, 400, kWhite);
        std::vector<std::pair<std::string, color::Rgba8>> entries;
        for (size_t i = 0; i < count; ++i)
            entries.push_back({"population " + std::to_string(i), color::paletteColor(i)});
        const int drawn = drawLegend(im, 10, 10, 300, entries, "population", ink, 2);
        EXPECT_EQ(drawn, legendHeight(count, 300, 2)) << count;
        EXPECT_GT(inkedPixels(im, 0, 10 + drawn - textHeight(2) - 4, 300, 10 + drawn), 20u);
        EXPECT_EQ(inkedPixels(im, 0, 10 + drawn, 300, 400), 0u) << count;
    }
    EXPECT_LE(legendHeight(40, 300, 2), 300);  // the long one was cut to "+N more"
    Image bar(200, 300, kWhite);
    drawColorBar(bar, 20, 20, 16, 150, color::Colormap::Viridis, {0.0f, 3.84f}, "CD4", ink, 2);
    const int h = colorBarHeight(150, 2);
    EXPECT_GT(inkedPixels(bar, 0, 20 + h - 8, 200, 20 + h), 20u);
    EXPECT_EQ(inkedPixels(bar, 0, 20 + h, 200, 300), 0u);
}

std::vector<float> twoClusters(size_t n) {
    std::vector<float> xy(2 * n);
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 0.3f);
    for (size_t i = 0; i < n; ++i) {
        xy[2 * i] = normal(rng) + (i % 2 ? 3.0f : 0.0f);
        xy[2 * i + 1] = normal(rng);
    }
    return xy;
}

/// The two clusters' picture coloured by two labels (alternate cells), `width` x `height`.
Image labelledPicture(int width, int height, const std::string& title,
                      const std::vector<std::string>& categories) {
    const size_t n = 2000;
    const auto xy = twoClusters(n);
    PictureSpec spec;
    spec.width = width, spec.height = height;
    spec.colorBy = ColorBy::Labels;
    spec.title = title;
    spec.categories = categories;
    for (size_t i = 0; i < n; ++i) spec.codes.push_back(static_cast<int32_t>(i % 2));
    return renderPicture(xy.data(), n, spec);
}

TEST(Picture, LegendNamesTheLabelsInTheRightPanel) {
    const Image im = labelledPicture(400, 300, "population", {"T cells", "B cells"});
    const int panel = 400 - std::max(400 / 5, 100);
    EXPECT_GT(inkedPixels(im, 0, 0, panel, 300), 1000u);   // points
    EXPECT_GT(inkedPixels(im, panel, 0, 400, 300), 100u);  // legend text and swatches
    // The legend's swatches show the palette colours of both categories.
    bool first = false, second = false;
    for (int y = 0; y < 300; ++y)
        for (int x = panel; x < 400; ++x) {
            first |= im.at(x, y) == color::paletteColor(0);
            second |= im.at(x, y) == color::paletteColor(1);
        }
    EXPECT_TRUE(first);
    EXPECT_TRUE(second);
}

// A tall narrow picture's legend keeps the demo's population names whole: its text grew with the
// height, and at 600 x 1800 "Memory CD4 T" and "Memory CD8 T" both read "Mem... T".
TEST(Picture, ATallNarrowPicturesLegendKeepsItsNamesWhole) {
    std::vector<std::pair<std::string, color::Rgba8>> entries;
    for (const char* name : {"Memory CD4 T", "Memory CD8 T", "Naive CD4 T", "Naive CD8 T",
                             "Non-classical monocytes", "CD56bright NK", "CD56dim NK"})
        entries.push_back({name, {200, 100, 50, 255}});
    const LegendFit tall = fitLegend(entries, "population", textScaleFor(600, 1800), 600);
    EXPECT_GE(tall.width, legendWidth(entries, "population", tall.scale))
        << "names cut at text scale " << tall.scale;
    // The same text as a square picture of the narrow side's size, and as before on wide ones.
    EXPECT_EQ(textScaleFor(600, 1800), textScaleFor(600, 600));
    EXPECT_EQ(textScaleFor(3000, 1000), textScaleFor(1000, 1000));
    EXPECT_GT(textScaleFor(3000, 3000), textScaleFor(1200, 1200));
}

// Long names that differ only in their middle (sample files of one study): the legend widens
// up to two fifths of the picture and shortens them, so that no ink reaches the picture's right
// edge; shortened, they keep what tells them apart (the shared end goes first, then the shared
// start at a word boundary, then the middle).
TEST(Picture, LongLegendNamesStayInsideAndApart) {
    const std::vector<std::string> samples = {
        "Gates_PTLG021_Unstim_Control_2_with_a_long_acquisition_suffix",
        "Gates_PTLG028_Unstim_Control_1_with_a_long_acquisition_suffix"};
    const Image im = labelledPicture(600, 600, "sample", samples);
    EXPECT_EQ(inkedPixels(im, 600 - 4, 0, 600, 600), 0u) << "the legend runs off the edge";
    EXPECT_GT(inkedPixels(im, 600 * 3 / 5, 0, 600, 600), 100u) << "no legend";

    const int roomy = textWidth("Gates_PTLG021_Unstim_Control_2......", 1);
    const auto noEnd = fitNames(samples, roomy, 1);
    EXPECT_EQ(noEnd[0].substr(0, 30), "Gates_PTLG021_Unstim_Control_2");
    EXPECT_EQ(noEnd[1].substr(0, 30), "Gates_PTLG028_Unstim_Control_1");
    EXPECT_LE(textWidth(noEnd[0], 1), roomy);
    const int tight = textWidth("...PTLG021_Unstim_Control_2...", 1);
    const auto core = fitNames(samples, tight, 1);
    EXPECT_NE(core[0], core[1]);
    EXPECT_NE(core[0].find("PTLG021"), std::string::npos) << core[0];
    EXPECT_EQ(core[0].find("Gates"), std::string::npos) << core[0];
    EXPECT_LE(textWidth(core[0], 1), tight);
    // Names that fit stay whole, and a lone name has nothing shared to drop.
    EXPECT_EQ(fitNames({"CD4 T", "B"}, 1000, 1), (std::vector<std::string>{"CD4 T", "B"}));
    EXPECT_LE(textWidth(fitNames({samples[0]}, tight, 1)[0], 1), tight);
}

TEST(Picture, AColourBarsLongTitleStaysInside) {
    // "CD4 (PacBlu-A)" and "Time (204.80 s)" ran off a 1000-pixel picture's right edge.
    for (const std::string title :
         {std::string("CD4 (PacBlu-A)"), std::string("Time (204.80 s)"),
          std::string("pSTAT3 (Alexa Fluor 488-A) of a long acquisition channel name")}) {
        for (const int width : {1000, 800, 400}) {
            const size_t n = 2000;
            const auto xy = twoClusters(n);
            PictureSpec spec;
            spec.width = width, spec.height = width * 3 / 4;
            spec.colorBy = ColorBy::Values;
            spec.title = title;
            for (size_t i = 0; i < n; ++i) spec.values.push_back(float(i));
            const Image im = renderPicture(xy.data(), n, spec);
            EXPECT_EQ(inkedPixels(im, width - 4, 0, width, spec.height), 0u)
                << "\"" << title << "\" runs off a " << width << "-pixel picture";
        }
    }
}

/// Whether `s` is whole UTF-8: every lead byte followed by as many continuation bytes as it says.
bool wholeUtf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        size_t more = 0;
        if ((c & 0xE0) == 0xC0)
            more = 1;
        else if ((c & 0xF0) == 0xE0)
            more = 2;
        else if ((c & 0xF8) == 0xF0)
            more = 3;
        else if (c >= 0x80)
            return false;  // a continuation byte where a character starts
        if (i + more >= s.size() && more > 0) return false;
        for (size_t k = 1; k <= more; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
        i += 1 + more;
    }
    return true;
}

// Every width from a few pixels up: the cut text fits (or is the ellipsis alone), is shortened,
// and no cut splits a character of a name with two-byte letters on both sides of its middle.
TEST(Annotate, ElidingKeepsShortTextAndCutsBetweenCharacters) {
    EXPECT_EQ(elideMiddle("CD4 T", 1000, 2), "CD4 T");
    const std::string name = "Naïve CD4 T cells of the thymus, größer";
    const std::string ellipsis = elideMiddle(name, 0, 1);  // nothing more fits
    EXPECT_TRUE(ellipsis == "\u2026" || ellipsis == "...") << ellipsis;
    const int whole = textWidth(name, 1);
    for (int width = 4; width < whole; width += 3) {
        const std::string cut = elideMiddle(name, width, 1);
        EXPECT_TRUE(wholeUtf8(cut)) << "width " << width << ": " << cut;
        EXPECT_TRUE(textWidth(cut, 1) <= width || cut == ellipsis) << "width " << width;
        EXPECT_NE(cut, name);
    }
}

// A name of words keeps its first and last words whole, as many as fit: the type and what tells
// it from its namesakes ("Memory CD...5RAbright" hid both).
TEST(Annotate, ElidingKeepsWholeWordsFromBothEnds) {
    const std::string name = "Naive CD4 T cells CD45RAbright";
    const auto cut = [&](const std::string& kept) {
        return elideMiddle(name, textWidth(kept, 1), 1);
    };
    const std::string dots = elideMiddle(name, 0, 1);
    EXPECT_EQ(cut("Naive CD4 " + dots + " CD45RAbright"), "Naive CD4 " + dots + " CD45RAbright");
    EXPECT_EQ(cut("Naive " + dots + " CD45RAbright"), "Naive " + dots + " CD45RAbright");
    // Narrower than the first and last words: characters from both ends, as before.
    const std::string tight = "Naive" + dots + "bright";
    const std::string narrow = cut(tight);
    EXPECT_LE(textWidth(narrow, 1), textWidth(tight, 1)) << narrow;
    EXPECT_NE(narrow.find(dots), std::string::npos) << narrow;
    EXPECT_EQ(narrow.rfind("Naiv", 0), 0u) << narrow;
}

TEST(Picture, ColourBarSpansTheMapAndPngDecodesToTheSamePixels) {
    const size_t n = 1000;
    const auto xy = twoClusters(n);
    PictureSpec spec;
    spec.width = 320, spec.height = 240;
    spec.colorBy = ColorBy::Values;
    spec.title = "CD3";
    for (size_t i = 0; i < n; ++i) spec.values.push_back(xy[2 * i]);
    const Image im = renderPicture(xy.data(), n, spec);
    const auto lo = color::sampleColormap(color::Colormap::Viridis, 0.0f);
    const auto hi = color::sampleColormap(color::Colormap::Viridis, 1.0f);
    bool sawLo = false, sawHi = false;
    for (int y = 0; y < im.height; ++y)
        for (int x = 221; x < im.width; ++x) sawLo |= im.at(x, y) == lo, sawHi |= im.at(x, y) == hi;
    EXPECT_TRUE(sawLo);
    EXPECT_TRUE(sawHi);

    const auto path = std::filesystem::temp_directory_path() / "sepal_test_picture.png";
    writePng(path.string(), im);
    int w = 0, h = 0, channels = 0;
    unsigned char* decoded = stbi_load(path.string().c_str(), &w, &h, &channels, 4);
    ASSERT_NE(decoded, nullptr);
    EXPECT_EQ(w, 320);
    EXPECT_EQ(h, 240);
    EXPECT_EQ(std::vector<uint8_t>(decoded, decoded + w * h * 4), im.pixels);
    stbi_image_free(decoded);
    std::filesystem::remove(path);
}

TEST(Picture, RejectsMismatchedInputsAndImpossibleSizes) {
    const std::vector<float> xy = {0, 0, 1, 1};
    PictureSpec spec;
    spec.colorBy = ColorBy::Values;
    spec.values = {1.0f};
    EXPECT_THROW(renderPicture(xy.data(), 2, spec), InputError);
    spec.colorBy = ColorBy::Density;
    spec.width = 0;
    EXPECT_THROW(renderPicture(xy.data(), 2, spec), InputError);
    EXPECT_THROW(writePng("/proc/sepal-unwritable/x.png", Image(2, 2, kWhite)), InputError);
}

}  // namespace
}  // namespace sepal::raster
