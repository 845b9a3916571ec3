#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/color/colormap.h"
#include "core/color/palette.h"
#include "core/color/value_map.h"

namespace sepal::color {
namespace {

float luminance(Rgba8 c) {
    return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b;
}

TEST(Colormap, SequentialMapsGrowBrighterFromEndToEnd) {
    for (Colormap map : {Colormap::Viridis, Colormap::Magma, Colormap::Inferno, Colormap::Plasma,
                         Colormap::Cividis}) {
        const auto table = colormapTable(map);
        // Perceptual sequential maps rise in lightness; allow tiny local dips from the knots.
        for (size_t i = 16; i < table.size(); i += 16)
            EXPECT_GT(luminance(table[i]), luminance(table[i - 16]) - 2.0f) << colormapName(map);
        EXPECT_GT(luminance(table[255]) - luminance(table[0]), 150.0f) << colormapName(map);
    }
}

TEST(Colormap, EndsClampNaNIsMissingAndNamesRoundTrip) {
    EXPECT_EQ(sampleColormap(Colormap::Viridis, -3.0f), sampleColormap(Colormap::Viridis, 0.0f));
    EXPECT_EQ(sampleColormap(Colormap::Viridis, 7.0f), sampleColormap(Colormap::Viridis, 1.0f));
    EXPECT_EQ(sampleColormap(Colormap::Magma, std::nanf("")), kMissingColor);
    for (Colormap map : allColormaps()) {
        EXPECT_EQ(colormapByName(colormapName(map)), map);
    }
    EXPECT_EQ(colormapByName("VIRIDIS"), Colormap::Viridis);
    EXPECT_FALSE(colormapByName("rainbow").has_value());
}

TEST(Colormap, DivergingMapIsNeutralInTheMiddle) {
    const Rgba8 mid = sampleColormap(Colormap::Coolwarm, 0.5f);
    EXPECT_LT(std::abs(mid.r - mid.b), 10);
    const Rgba8 lo = sampleColormap(Colormap::Coolwarm, 0.0f),
                hi = sampleColormap(Colormap::Coolwarm, 1.0f);
    EXPECT_GT(lo.b, lo.r);
    EXPECT_GT(hi.r, hi.b);
}

TEST(Palette, TwentyFourColoursAreMutuallyDistinguishable) {
    float closest = 1e9f;
    for (size_t i = 0; i < kPaletteSize; ++i) {
        for (size_t j = i + 1; j < kPaletteSize; ++j)
            closest = std::min(closest, perceptualDistance(paletteColor(i), paletteColor(j)));
        // None may pass for the missing-value grey or vanish on a white background.
        EXPECT_GT(perceptualDistance(paletteColor(i), kMissingColor), 0.08f) << i;
        EXPECT_GT(perceptualDistance(paletteColor(i), Rgba8{255, 255, 255, 255}), 0.1f) << i;
        // Nor sink into the app's dark canvas.
        EXPECT_GT(perceptualDistance(paletteColor(i), Rgba8{16, 17, 20, 255}), 0.3f) << i;
    }
    EXPECT_GT(closest, 0.06f);
    EXPECT_GE(kPaletteSize, 20u);
    // Beyond the table colours repeat as shades, not as identical colours.
    EXPECT_NE(paletteColor(kPaletteSize), paletteColor(0));
    EXPECT_NE(paletteColor(2 * kPaletteSize), paletteColor(kPaletteSize));
}

TEST(ValueMap, PercentileRangeClipsOutliersAndSkipsNonFinite) {
    std::vector<float> v;
    for (int i = 0; i <= 100; ++i) v.push_back(static_cast<float>(i));
    v.push_back(1e9f);
    v.push_back(std::nanf(""));
    v.push_back(-INFINITY);
    const ValueRange r = percentileRange(v.data(), v.size(), 1, 1.0, 99.0);
    EXPECT_NEAR(r.lo, 1.0f, 1.01f);
    EXPECT_LT(r.hi, 1000.0f);
    EXPECT_GT(r.hi, 98.0f);
    const ValueRange full = percentileRange(v.data(), v.size(), 1, 0.0, 100.0);
    EXPECT_EQ(full.lo, 0.0f);
    EXPECT_EQ(full.hi, 1e9f);
}

TEST(ValueMap, StrideReadsOneColumnAndFlatColumnsGetARange) {
    const std::vector<float> m = {1, 5, 2, 5, 3, 5};  // 3 x 2, second column constant
    const ValueRange c0 = percentileRange(m.data(), 3, 2, 0.0, 100.0);
    EXPECT_EQ(c0.lo, 1.0f);
    EXPECT_EQ(c0.hi, 3.0f);
    const ValueRange c1 = percentileRange(m.data() + 1, 3, 2, 0.0, 100.0);
    EXPECT_LT(c1.lo, 5.0f);
    EXPECT_GT(c1.hi, 5.0f);
    const auto colors = mapValues(m.data(), 3, 2, c0, Colormap::Viridis);
    EXPECT_EQ(colors[0], sampleColormap(Colormap::Viridis, 0.0f));
    EXPECT_EQ(colors[2], sampleColormap(Colormap::Viridis, 1.0f));
    const float nan = std::nanf("");
    EXPECT_EQ(mapValues(&nan, 1, 1, c0, Colormap::Viridis)[0], kMissingColor);
}

}  // namespace
}  // namespace sepal::color
