// Marker classes, learnt thresholds, cell-type rules and population names: on the demo with
// state markers most cells are in a population of their true name, and no name contradicts
// the population's medians.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "core/cluster/metaclusters.h"
#include "core/cluster/population_naming.h"
#include "core/common/error.h"
#include "core/common/median.h"
#include "core/demo/demo_data.h"
#include "core/embedsom/embedsom.h"
#include "core/io/population_labels.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"
#include "core/transform/channel_label.h"
#include "fresh_dir.h"
#include "test_paths.h"

namespace sepal {
namespace {

TEST(MarkerCatalogue, SynonymsIsotopeTagsAndPhosphoPrefixesAreUnderstood) {
    const auto name = [](const std::string& m) {
        const auto e = catalogueEntry(m);
        return e ? e->name : std::string("?");
    };
    EXPECT_EQ(name("CD8a"), "CD8");
    EXPECT_EQ(name("HLADR"), "HLA-DR");
    EXPECT_EQ(name("hla-dr"), "HLA-DR");
    EXPECT_EQ(name("141Pr_CD3"), "CD3");
    EXPECT_EQ(name("CD3 (Pr141Di)"), "CD3");
    EXPECT_EQ(name("CD45RA"), "CD45RA");  // not an isotope tag
    EXPECT_EQ(name("CD235ab_CD61"), "CD235ab");
    EXPECT_EQ(name("STAT5"), "pSTAT5");
    EXPECT_EQ(name("p-ERK1/2"), "pERK");
    EXPECT_EQ(name("IL-2"), "IL-2");
    EXPECT_EQ(name("CD66b"), "CD66");
    EXPECT_EQ(name("Xyz123"), "?");
    EXPECT_EQ(catalogueEntry("Perforin")->markerClass, MarkerClass::State);
    EXPECT_EQ(catalogueEntry("TCRgd")->markerClass, MarkerClass::Type);
}

TEST(MarkerClasses, DefaultsFollowTheRolesAndTheCatalogue) {
    const io::Table demo = demo::makeDemoTable(200, 1, true);
    const std::vector<MarkerClass> classes = defaultMarkerClasses(demo);
    const auto of = [&](const std::string& channel) {
        return classes[size_t(demo.findChannel(channel))];
    };
    EXPECT_EQ(of("Time"), MarkerClass::None);
    EXPECT_EQ(of("Ir191Di"), MarkerClass::None);
    EXPECT_EQ(of("Pd104Di"), MarkerClass::None);
    EXPECT_EQ(of("Pr141Di"), MarkerClass::Type);   // CD3
    EXPECT_EQ(of("Er166Di"), MarkerClass::State);  // pSTAT5
    EXPECT_EQ(of("Yb174Di"), MarkerClass::State);  // Perforin
    // Overrides by channel or marker, any case; an unknown name is refused with the file.
    const auto changed =
        markerClasses(demo, {{"cd3", MarkerClass::State}, {"Er166Di", MarkerClass::Type}});
    EXPECT_EQ(changed[size_t(demo.findChannel("Pr141Di"))], MarkerClass::State);
    EXPECT_EQ(changed[size_t(demo.findChannel("Er166Di"))], MarkerClass::Type);
    EXPECT_THROW(markerClasses(demo, {{"CD999", MarkerClass::Type}}), InputError);
    // The app keeps classes of another file's channels aside instead of refusing them.
    const MarkerClassOverrides mine =
        overridesOf(demo, {{"cd3", MarkerClass::State}, {"CD999", MarkerClass::Type}});
    EXPECT_EQ(mine, (MarkerClassOverrides{{"cd3", MarkerClass::State}}));
    EXPECT_EQ(markerClasses(demo, mine), markerClasses(demo, {{"cd3", MarkerClass::State}}));
}

TEST(MarkerClasses, TheFileIsReadAndItsMistakesNamed) {
    const auto dir = test::freshDir("marker_classes");
    const auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    };
    const auto good =
        readMarkerClasses(write("good.csv", "channel,class\nCD3,state\nEr166Di, Type\n"));
    EXPECT_EQ(good.at("CD3"), MarkerClass::State);
    EXPECT_EQ(good.at("Er166Di"), MarkerClass::Type);
    try {
        readMarkerClasses(write("bad.csv", "CD3,lineage\n"));
        FAIL() << "a class 'lineage' was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.csv:1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("type, state or none"), std::string::npos) << e.what();
    }
    EXPECT_THROW(readCellTypes(write("rules.csv", "name,rule\nT cells,CD3\n")), InputError);
    const auto rules = readCellTypes(write("rules2.csv", "name,rule\nT cells,CD3+ CD19-\n"));
    ASSERT_EQ(rules.size(), 1u);
    EXPECT_EQ(rules[0].conditions.size(), 2u);
}

TEST(MarkerRules, WordsSayWhichSideOfWhichCut) {
    const auto c = parseMarkerRule("CD3+ CD8- CD16hi CD14lo", "test");
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0].marker, "CD3");
    EXPECT_EQ(c[0].call, MarkerCall::Positive);
    EXPECT_EQ(c[1].call, MarkerCall::Negative);
    EXPECT_EQ(c[2].marker, "CD16");
    EXPECT_EQ(c[2].call, MarkerCall::Bright);
    EXPECT_EQ(c[3].call, MarkerCall::NotBright);
    EXPECT_THROW(parseMarkerRule("CD3+ CD4", "test"), InputError);
    // Every built-in rule names markers the catalogue knows.
    for (const CellTypeRule& r : builtInCellTypes())
        for (const MarkerCondition& m : r.conditions)
            EXPECT_TRUE(catalogueEntry(m.marker).has_value()) << r.name << ": " << m.marker;
}

TEST(MarkerRules, TheDocumentedTableIsTheBuiltInOne) {
    std::ifstream in(test::sourceDir() / "docs" / "MARKERS.md");
    ASSERT_TRUE(in) << "docs/MARKERS.md is missing";
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const CellTypeRule& r : builtInCellTypes())
        EXPECT_NE(doc.find("| " + r.name + " | " + r.text + " |"), std::string::npos)
            << r.name << " (" << r.text << ") is not in docs/MARKERS.md";
}

std::vector<float> mixture(const std::vector<std::pair<double, double>>& modes, size_t n) {
    // modes: (centre, share)
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 0.35f);
    std::vector<float> v;
    for (const auto& [centre, share] : modes)
        for (size_t i = 0; i < size_t(share * double(n)); ++i)
            v.push_back(float(centre) + noise(rng));
    return v;
}

TEST(MarkerThresholds, TheValleyAfterTheLowestModeCutsPositiveFromNegative) {
    const MarkerThreshold two = learnThreshold(mixture({{0.2, 0.7}, {3.1, 0.3}}, 20000));
    ASSERT_TRUE(two.resolved);
    EXPECT_GT(two.positive, 1.0f);
    EXPECT_LT(two.positive, 2.3f);
    EXPECT_FALSE(two.hasBright);
    // Negative, dim and bright: dim cells are positive, the second valley cuts bright from dim.
    const MarkerThreshold three =
        learnThreshold(mixture({{0.2, 0.8}, {1.7, 0.05}, {4.4, 0.15}}, 40000));
    ASSERT_TRUE(three.resolved);
    EXPECT_GT(three.positive, 0.6f);
    EXPECT_LT(three.positive, 1.4f);
    ASSERT_TRUE(three.hasBright);
    EXPECT_GT(three.bright, 2.3f);
    EXPECT_LT(three.bright, 3.8f);
    // A rare positive population (1%) still makes a mode; so does one of 0.4 %, which lies
    // wholly above the 99.5th percentile (plasmacytoid DCs on CD123: a histogram that stopped
    // there never saw them, and CD123 named nothing).
    EXPECT_TRUE(learnThreshold(mixture({{0.2, 0.99}, {4.4, 0.01}}, 50000)).resolved);
    const MarkerThreshold rare = learnThreshold(mixture({{0.2, 0.996}, {4.4, 0.004}}, 50000));
    ASSERT_TRUE(rare.resolved);
    EXPECT_GT(rare.positive, 1.0f);
    EXPECT_LT(rare.positive, 3.6f);
    // One mode: nothing learnt, the marker says nothing; nor does a heavy right tail (2 % of
    // the cells spread exponentially above it), whose last 0.5 % the histogram now reaches.
    EXPECT_FALSE(learnThreshold(mixture({{3.0, 1.0}}, 20000)).resolved);
    std::vector<float> tailed = mixture({{0.3, 0.98}}, 50000);
    std::mt19937 rng(13);
    std::exponential_distribution<float> tail(1.0f);
    for (int i = 0; i < 1000; ++i) tailed.push_back(0.3f + tail(rng));
    EXPECT_FALSE(learnThreshold(tailed).resolved);
    EXPECT_FALSE(learnThreshold({}).resolved);
}

TEST(MarkerThresholds, AFewCellsThatMeasuredNothingAreNoNegativeMode) {
    // Gated CyTOF cells on CD66: one broad mode of every cell but the granulocytes, and 0.8 %
    // of the cells at exactly 0 (below the 1 % that always made a pile). Their narrow mode cut
    // every other cell positive at about 0.1; they are left out, and one mode cuts nothing.
    std::vector<float> broad = mixture({{1.5, 1.0}}, 4000);
    broad.insert(broad.end(), 32, 0.0f);
    const MarkerThreshold one = learnThreshold(broad);
    EXPECT_FALSE(one.resolved) << "cut at " << one.positive;
    // Below a marker with negative and positive cells the same pile leaves the valley between
    // them where it is.
    std::vector<float> two = mixture({{1.5, 0.6}, {3.8, 0.4}}, 4000);
    two.insert(two.end(), 32, 0.0f);
    const MarkerThreshold cut = learnThreshold(two);
    ASSERT_TRUE(cut.resolved);
    EXPECT_GT(cut.positive, 2.0f);
    EXPECT_LT(cut.positive, 3.3f);
    // A few low cells that are no pile (spread, not stacked on the floor) still make a mode.
    std::vector<float> low = mixture({{1.5, 0.97}, {-1.5, 0.03}}, 4000);
    EXPECT_TRUE(learnThreshold(low).resolved);
}

TEST(PopulationNames, CellsPositiveOnTwoLineagesAreCalledDoublets) {
    // Markers CD3, CD19, CD14: T cells, B cells, and a few cells high on CD3 and CD19.
    Matrix points(3000, 3);
    std::vector<int32_t> codes(3000);
    std::mt19937 rng(3);
    std::normal_distribution<float> noise(0.0f, 0.3f);
    for (size_t i = 0; i < 3000; ++i) {
        const int g = i < 1500 ? 0 : i < 2800 ? 1 : 2;
        codes[i] = g;
        points.at(i, 0) = (g != 1 ? 3.5f : 0.2f) + noise(rng);
        points.at(i, 1) = (g != 0 ? 3.5f : 0.2f) + noise(rng);
        points.at(i, 2) = 0.2f + noise(rng);
    }
    NamingInput input{{"CD3", "CD19", "CD14"}, std::vector<MarkerClass>(3, MarkerClass::Type)};
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "T cells");
    EXPECT_EQ(names[1].name, "B cells");
    EXPECT_TRUE(names[2].doublets);
    EXPECT_EQ(names[2].name, "Doublets (CD3+ CD19+)");
}

// T cells, granulocytes (CD15+, and dim on CD45: their CD45 mode is the lowest, far above the
// other markers' background), a few cells on both, and debris at the floor of every marker: the
// pair are doublets by CD3 with CD15; the granulocytes' phrase says CD45lo, not CD45- (their CD45
// median is well above background), the debris' CD45- (theirs is at it).
TEST(PopulationNames, TAndGranulocyteDoubletsAndADimFloorSaysLo) {
    // Markers CD3, CD15, CD45, CD19, CD14, CD4: background 0.2 on all but CD45.
    const size_t n = 6000;
    Matrix points(n, 6);
    std::vector<int32_t> codes(n);
    std::mt19937 rng(11);
    std::normal_distribution<float> noise(0.0f, 0.5f);  // the cuts land near 2, as on CyTOF
    for (size_t i = 0; i < n; ++i) {
        const int g = i < 2400 ? 0 : i < 5400 ? 1 : i < 5600 ? 2 : 3;  // T, gran., doublets, debris
        codes[i] = g;
        points.at(i, 0) = (g == 0 || g == 2 ? 5.0f : 0.2f) + noise(rng);        // CD3
        points.at(i, 1) = (g == 1 || g == 2 ? 5.0f : 0.2f) + noise(rng);        // CD15
        points.at(i, 2) = (g == 1 ? 1.6f : g == 3 ? 0.2f : 5.0f) + noise(rng);  // CD45
        points.at(i, 3) = 0.2f + noise(rng);                                    // CD19
        points.at(i, 4) = 0.2f + noise(rng);                                    // CD14
        points.at(i, 5) = (i % 2 ? 5.0f : 0.2f) + noise(rng);  // CD4: half of every group
    }
    NamingInput input{{"CD3", "CD15", "CD45", "CD19", "CD14", "CD4"},
                      std::vector<MarkerClass>(6, MarkerClass::Type)};
    const auto cuts = learnThresholds(points, input.classes);
    ASSERT_TRUE(cuts[2].resolved);
    EXPECT_TRUE(cuts[2].lowIsDim) << "CD45's lowest mode " << cuts[2].lowMode;
    EXPECT_FALSE(cuts[0].lowIsDim);
    const auto names = namePopulations(points, codes, 4, input);
    EXPECT_TRUE(names[2].doublets);
    EXPECT_EQ(names[2].name, "Doublets (CD3+ CD15+)");
    EXPECT_NE(names[1].phrase.find("CD45lo"), std::string::npos) << names[1].phrase;
    EXPECT_EQ(names[1].phrase.find("CD45-"), std::string::npos) << names[1].phrase;
    EXPECT_NE(names[1].phrase.find("CD3-"), std::string::npos) << names[1].phrase;
    EXPECT_NE(names[3].phrase.find("CD45-"), std::string::npos) << names[3].phrase;
}

// A B-precursor tube's CD45: granulocytes dim (its lowest mode), then one broad positive mode
// that holds CD45dim blasts below CD45bright lymphocytes. Every cell of both is above the cut,
// and the blasts read "CD45hi", the opposite of what their median says beside the lymphocytes'.
TEST(PopulationNames, TheDimOnesOfTheCellsAboveADimFloorSayPlusNotHi) {
    // Markers CD3, CD19, CD10, CD45: background 0.2 on all but CD45.
    const size_t n = 6000;
    Matrix points(n, 4);
    std::vector<int32_t> codes(n);
    std::mt19937 rng(17);
    std::normal_distribution<float> noise(0.0f, 0.35f);
    for (size_t i = 0; i < n; ++i) {
        const int g = int(i % 3);  // 0 T cells, 1 blasts, 2 granulocytes
        codes[i] = g;
        points.at(i, 0) = (g == 0 ? 5.0f : 0.2f) + noise(rng);                  // CD3
        points.at(i, 1) = (g == 1 ? 5.0f : 0.2f) + noise(rng);                  // CD19
        points.at(i, 2) = (g == 1 ? 5.0f : 0.2f) + noise(rng);                  // CD10
        points.at(i, 3) = (g == 0 ? 5.2f : g == 1 ? 4.0f : 1.6f) + noise(rng);  // CD45
    }
    NamingInput input{{"CD3", "CD19", "CD10", "CD45"},
                      std::vector<MarkerClass>(4, MarkerClass::Type)};
    const auto cuts = learnThresholds(points, input.classes);
    ASSERT_TRUE(cuts[3].lowIsDim) << "CD45's lowest mode " << cuts[3].lowMode;
    ASSERT_LT(cuts[3].positive, 3.0f) << "the cut is meant to part the granulocytes only";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_NE(names[0].phrase.find("CD45hi"), std::string::npos) << names[0].phrase;
    EXPECT_NE(names[1].phrase.find("CD45+"), std::string::npos) << names[1].phrase;
    EXPECT_EQ(names[1].phrase.find("CD45hi"), std::string::npos) << names[1].phrase;
    EXPECT_NE(names[2].phrase.find("CD45lo"), std::string::npos) << names[2].phrase;
}

TEST(PopulationNames, AShallowValleyAssertsAMarkerOnlyWhenMostCellsAgree) {
    // Marker M: modes at 0 and 1.05, close enough for a shallow valley. Population 0 has 70% of
    // its cells in the upper mode, population 1 all of them, population 2 none.
    Matrix points(6000, 1);
    std::vector<int32_t> codes(6000);
    std::mt19937 rng(5);
    std::normal_distribution<float> noise(0.0f, 0.35f);
    for (size_t i = 0; i < 6000; ++i) {
        const int g = int(i % 3);
        codes[i] = g;
        const bool up = g == 1 || (g == 0 && (i / 3) % 10 < 7);
        points.at(i, 0) = (up ? 1.05f : 0.0f) + noise(rng);
    }
    const std::vector<CellTypeRule> rules = {{"M cells", parseMarkerRule("M+", "test"), "M+"}};
    NamingInput input{{"M"}, {MarkerClass::Type}, &rules};
    const MarkerThreshold cut = learnThresholds(points, input.classes)[0];
    ASSERT_TRUE(cut.resolved);
    ASSERT_GT(cut.depth, 0.5f) << "the valley is meant to be shallow";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_NE(names[0].name, "M cells") << "70% across a shallow valley named the population";
    EXPECT_EQ(names[1].name, "M cells");
    EXPECT_NE(names[2].name, "M cells");
}

/// n cells of `groups` populations (cell i in population i % groups, codes filled), column c of
/// cell i at centre(i, population, c) plus Gaussian noise of sd 0.3.
template <class Centre>
Matrix noisyCells(size_t n, size_t cols, int groups, uint32_t seed, std::vector<int32_t>& codes,
                  const Centre& centre) {
    Matrix points(n, cols);
    codes.assign(n, 0);
    std::mt19937 rng(seed);
    std::normal_distribution<float> noise(0.0f, 0.3f);
    for (size_t i = 0; i < n; ++i) {
        const int g = int(i % size_t(groups));
        codes[i] = g;
        for (size_t c = 0; c < cols; ++c) points.at(i, c) = centre(i, g, c) + noise(rng);
    }
    return points;
}

// Classical monocytes (CD14+ CD16- CD3- CD19-), gamma-delta T cells and a few cells on CD14 and
// TCRgd at once: the monocyte rule holds on them (three conditions confirmed, which keeps the
// count of positives from calling them doublets), but no monocyte carries the T cell receptor
// (CytoNorm's "Classical monocytes CD7+": TCRgd 3.6, CD161, CD56, CD66 and CD15 up, HLA-DR low).
TEST(PopulationNames, CellsOnTheGammaDeltaReceptorAndCD14AreDoublets) {
    std::vector<int32_t> codes;
    // A fourth population, on CD16 and CD19, gives those a cut.
    const Matrix points = noisyCells(8000, 5, 4, 17, codes, [](size_t, int g, size_t c) {
        switch (c) {
            case 0:
                return g == 0 || g == 2 ? 3.5f : 0.2f;  // CD14: monocytes and the pairs
            case 1:
                return g == 1 || g == 2 ? 3.5f : 0.2f;  // TCRgd: gd T cells and the pairs
            case 2:
                return g == 1 ? 3.5f : 0.2f;  // CD3: gd T cells only
            default:
                return g == 3 ? 3.5f : 0.2f;  // CD16, CD19
        }
    });
    NamingInput input{{"CD14", "TCRgd", "CD3", "CD16", "CD19"},
                      std::vector<MarkerClass>(5, MarkerClass::Type)};
    const auto names = namePopulations(points, codes, 4, input);
    EXPECT_EQ(names[0].name, "Classical monocytes") << names[0].phrase;
    EXPECT_EQ(names[1].name, "gd T") << names[1].phrase;
    EXPECT_EQ(names[2].name, "Doublets (TCRgd+ CD14+)") << names[2].phrase;
}

TEST(PopulationNames, NamesakesAreToldApartByTheMarkerThatPartsThem) {
    // Three populations: two positive on A, which a cut calls, and one negative; on B, whose
    // values have one mode (no cut), the two A+ ones part by about two spreads. Without B they
    // would both be "A+"; C parts nothing.
    std::vector<int32_t> codes;
    Matrix points = noisyCells(9000, 3, 3, 8, codes, [](size_t, int g, size_t c) {
        if (c == 0) return g < 2 ? 3.0f : 0.0f;
        if (c == 1) return g == 0 ? 1.0f : g == 1 ? 2.0f : 1.5f;
        return 1.0f;
    });
    NamingInput input{{"A", "B", "C"}, {MarkerClass::Type, MarkerClass::Type, MarkerClass::Type}};
    const auto cuts = learnThresholds(points, input.classes);
    ASSERT_TRUE(cuts[0].resolved);
    ASSERT_FALSE(cuts[1].resolved) << "B is meant to have one mode";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "A+ Bdim");
    EXPECT_EQ(names[1].name, "A+ Bbright");
    EXPECT_EQ(names[2].name, "A-");
    EXPECT_EQ(names[0].phrase, names[0].name);
    ASSERT_EQ(names[0].called.size(), 1u);  // B is no call on a cut
    // A channel without a marker of its own ("APC-Cy7-A") tells no one apart.
    NamingInput channelsOnly = input;
    channelsOnly.unnamed = {false, true, false};
    const auto unnamed = namePopulations(points, codes, 3, channelsOnly);
    EXPECT_EQ(unnamed[0].name, "A+");
    EXPECT_EQ(unnamed[1].name, "A+ (2)");
    // Namesakes that nothing parts keep the counter.
    for (size_t i = 0; i < 9000; ++i)
        if (codes[i] == 1) points.at(i, 1) -= 1.0f;
    const auto alike = namePopulations(points, codes, 3, input);
    EXPECT_EQ(alike[0].name, "A+");
    EXPECT_EQ(alike[1].name, "A+ (2)");
}

/// The base of a name without its " (2)" counter.
std::string baseName(const std::string& name) {
    const size_t at = name.rfind(" (");
    return at != std::string::npos && name.back() == ')' &&
                   std::isdigit(static_cast<unsigned char>(name[at + 2]))
               ? name.substr(0, at)
               : name;
}

TEST(PopulationNames, NamesakesThatOnlyTheirPhrasesMarkersPartSayBrightAndDim) {
    // Three populations: two A+ and B+ whose A medians part by about two of their spreads (P0
    // spread evenly from 2 to 4, below P1's 4.3, so that A has no bright cut), one negative on
    // both; C has one mode and parts nothing. No marker the phrase left out parts the two, so
    // "A+" itself becomes "Abright" and "Adim" (on a T cell file, namesakes whose CCR5 medians
    // lay 2.1 of their spreads apart were numbered: "(2)", "(3)").
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(9000, 3, 3, 8, codes, [](size_t i, int g, size_t c) {
        if (c == 2) return 1.0f;
        if (g == 2) return 0.0f;
        if (c == 1 || g == 1) return g == 1 && c == 0 ? 4.3f : 3.0f;
        return 2.0f + 2.0f * float(i % 101) / 100.0f;  // P0: spread from 2 to 4, no valley
    });
    const NamingInput input{{"A", "B", "C"}, std::vector<MarkerClass>(3, MarkerClass::Type)};
    const auto cuts = learnThresholds(points, input.classes);
    ASSERT_TRUE(cuts[0].resolved);
    ASSERT_FALSE(cuts[0].hasBright) << "A's positive cells are meant to form one mode";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "Adim B+");
    EXPECT_EQ(names[1].name, "Abright B+");
    EXPECT_EQ(names[2].name, "A- B-");
    // Both are still called positive on A: dim and bright are relative to each other.
    for (size_t p : {size_t(0), size_t(1)})
        EXPECT_NE(std::find(names[p].called.begin(), names[p].called.end(),
                            std::make_pair(size_t(0), true)),
                  names[p].called.end())
            << names[p].name;
    // Medians as close as their spreads part nothing: the counter stays.
    const Matrix close = noisyCells(9000, 3, 3, 8, codes, [](size_t, int g, size_t c) {
        if (c == 2) return 1.0f;
        if (g == 2) return 0.0f;
        return c == 0 && g == 1 ? 3.2f : 3.0f;
    });
    const auto alike = namePopulations(close, codes, 3, input);
    EXPECT_EQ(baseName(alike[1].name), alike[0].name);
    EXPECT_NE(alike[1].name, alike[0].name);
}

TEST(PopulationNames, NamesakesPartedByACallTheirPhraseLeftOutSayIt) {
    // Six populations on five markers with cuts: P0 and P1 are positive on M1 to M4, which set
    // them apart most (the phrase's four markers), and part on M5 (P0 positive, P1 negative), as
    // CD4 and CD8 T cells part beyond their shared calls. They read "... M5+" and "... M5-", not
    // "(2)"; P2 and P4 (and P3 and P5) are the same cells and keep the counter.
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(12000, 5, 6, 10, codes, [](size_t, int g, size_t c) {
        if (c < 4) return g < 2 ? 3.0f : 0.0f;
        return g % 2 == 0 ? 3.0f : 0.0f;
    });
    const NamingInput input{{"M1", "M2", "M3", "M4", "M5"},
                            std::vector<MarkerClass>(5, MarkerClass::Type)};
    const auto names = namePopulations(points, codes, 6, input);
    EXPECT_EQ(names[0].name, "M1+ M2+ M3+ M4+ M5+");
    EXPECT_EQ(names[1].name, "M1+ M2+ M3+ M4+ M5-");
    EXPECT_EQ(names[0].called.size(), 4u);  // M5 tells the namesakes apart: no call of its own
    EXPECT_EQ(names[4].name, names[2].name + " (2)");
    EXPECT_EQ(names[5].name, names[3].name + " (2)");
}

TEST(PopulationNames, CellTypeNamesakesAreToldApartAfterTheirName) {
    // As above, with a rule "Tx" (M1+ M2+) that P0 and P1 both satisfy: they read "Tx M5+" and
    // "Tx M5-" (numbered "Tx", "Tx (2)" before); P2 and P4 are the same cells and keep the
    // counter.
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(12000, 5, 6, 10, codes, [](size_t, int g, size_t c) {
        if (c < 4) return g < 2 ? 3.0f : 0.0f;
        return g % 2 == 0 ? 3.0f : 0.0f;
    });
    const std::vector<CellTypeRule> rules = {{"Tx", parseMarkerRule("M1+ M2+", "test"), ""}};
    NamingInput input{{"M1", "M2", "M3", "M4", "M5"},
                      std::vector<MarkerClass>(5, MarkerClass::Type)};
    input.rules = &rules;
    const auto names = namePopulations(points, codes, 6, input);
    EXPECT_EQ(names[0].name, "Tx M5+");
    EXPECT_EQ(names[1].name, "Tx M5-");
    EXPECT_EQ(names[0].cellType, "Tx");
    EXPECT_EQ(names[0].phrase, "M1+ M2+ M3+ M4+ M5+");
    EXPECT_EQ(names[4].name, names[2].name + " (2)");
}

TEST(PopulationNames, AMarkerOnTwoChannelsIsCalledOnceAndNeverAgainstEither) {
    // CD3 on two channels (two tubes' stains, or one stain read by two detectors). P0's two
    // channels disagree (positive on the first, negative on the second): no CD3 call, where the
    // phrase read "CD3+ CD19- CD3- CD56-". P1 and P2 agree on both: CD3 called once, by the
    // first. P3 has no values on the first (the other tube's cells): named by the second.
    std::vector<int32_t> codes;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Matrix points = noisyCells(16000, 4, 4, 12, codes, [&](size_t, int g, size_t c) {
        const float table[4][4] = {{3, 0, 0, 0}, {0, 3, 0, 3}, {3, 3, 3, 0}, {nan, 0, 3, 3}};
        return table[g][c];
    });
    const auto count = [](const std::string& phrase, const std::string& word) {
        size_t times = 0;
        for (size_t at = phrase.find(word); at != std::string::npos; at = phrase.find(word, at + 1))
            ++times;
        return times;
    };
    const auto check = [&](const NamingInput& input) {
        const auto names = namePopulations(points, codes, 4, input);
        for (const auto& n : names) EXPECT_LE(count(n.phrase, "CD3"), 1u) << n.phrase;
        EXPECT_EQ(count(names[0].phrase, "CD3"), 0u) << names[0].phrase;
        EXPECT_EQ(count(names[1].phrase, "CD3-"), 1u) << names[1].phrase;
        EXPECT_EQ(count(names[2].phrase, "CD3+"), 1u) << names[2].phrase;
        EXPECT_EQ(count(names[3].phrase, "CD3+"), 1u) << names[3].phrase;
        for (const auto& [c, up] : names[2].called) EXPECT_NE(c, 2u) << "the first channel calls";
        for (const auto& [c, up] : names[3].called)
            if (c == 0 || c == 2) EXPECT_EQ(c, 2u) << "P3's values are on the second";
    };
    {
        SCOPED_TRACE("the same name");
        check(NamingInput{{"CD3", "CD19", "CD3", "CD56"},
                          std::vector<MarkerClass>(4, MarkerClass::Type)});
    }
    {
        // Through a file's channels: the labels differ ("CD3 (FL1-A)", "CD3 (FL3-A)"), the
        // stain is one, and a name says "CD3"; CD158a and CD158b stay two (the catalogue's
        // synonyms are not one stain).
        SCOPED_TRACE("a file's channels");
        io::Table t;
        t.channels = {{"FL1-A", "CD3"}, {"FL2-A", "CD19"}, {"FL3-A", "CD3"}, {"FL4-A", "CD56"}};
        const std::vector<std::string> columns{"FL1-A", "FL2-A", "FL3-A", "FL4-A"};
        NamingInput input = namingInputFor(t, columns);
        EXPECT_EQ(input.markers[0], "CD3");
        EXPECT_EQ(input.markers[2], "CD3");
        EXPECT_EQ(input.stains[0], input.stains[2]);
        input.classes.assign(4, MarkerClass::Type);
        check(input);
        t.channels[0].marker = "CD158a";
        t.channels[2].marker = "CD158b";
        const NamingInput kirs = namingInputFor(t, columns);
        EXPECT_NE(kirs.stains[0], kirs.stains[2]);
    }
}

TEST(PopulationNames, CellsWithoutAMarkerMostCellsCarryDimlySayIt) {
    // D is a CD45: its lowest mode is dim (most cells dim, some bright at 3.5), and a twentieth
    // of the cells lack it altogether, smeared below the dim cells without a mode of their own
    // (red cells and platelets among leukocytes). Their absence of D sets them apart most, and
    // their name says "D-", which was crowded out by A, B, C and E when it counted only against
    // the bright cells (a cut between dim and bright), or was never said (dim on every cell).
    auto lacking = [](float dim, float smearCentre, float smearSpread, bool onEveryCell) {
        SCOPED_TRACE(onEveryCell ? "dim on every cell" : "a cut between dim and bright");
        const size_t n = 20000;
        Matrix points(n, 5);
        std::vector<int32_t> codes(n);
        std::mt19937 rng(11);
        std::normal_distribution<float> noise(0.0f, 0.3f), smear(smearCentre, smearSpread);
        // Per population: A, B, C, E positive or not, and D's level (-1: lacks it).
        const float levels[4][5] = {
            {3, 3, 0, dim, 3}, {0, 3, 3, 3.5f, 3}, {3, 0, 3, dim, 0}, {0, 0, 0, -1, 0}};
        for (size_t i = 0; i < n; ++i) {
            const int g = i % 20 == 0 ? 3 : int(i % 3);
            codes[i] = g;
            for (size_t c = 0; c < 5; ++c)
                points.at(i, c) = levels[g][c] < 0 ? smear(rng) : levels[g][c] + noise(rng);
        }
        const NamingInput input{{"A", "B", "C", "D", "E"},
                                std::vector<MarkerClass>(5, MarkerClass::Type)};
        const auto cuts = learnThresholds(points, input.classes);
        ASSERT_TRUE(cuts[3].lowIsDim) << "D's lowest mode is meant to be its dim cells'";
        ASSERT_EQ(cuts[3].onEveryCell, onEveryCell);
        const auto names = namePopulations(points, codes, 4, input);
        EXPECT_EQ(names[3].phrase.rfind("D- ", 0), 0u) << names[3].phrase;
        ASSERT_FALSE(names[3].called.empty());
        EXPECT_EQ(names[3].called.front(), std::make_pair(size_t(3), false));
        // The dim and bright populations are not said to lack it.
        for (int p = 0; p < 3; ++p)
            EXPECT_EQ(names[p].phrase.find("D-"), std::string::npos) << names[p].phrase;
    };
    lacking(1.2f, 0.3f, 0.45f, false);
    lacking(1.6f, 0.45f, 0.5f, true);
}

TEST(PopulationNames, APanelWithoutStainNamesTellsNamesakesApartByItsDetectors) {
    // An older instrument's file names its detectors only: they name the populations, and so
    // they tell namesakes apart too ("FL1-H+ FL2-Hdim", not "FL1-H+ (2)"). Beside a stained
    // channel, the unstained detectors tell no one apart again.
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(9000, 3, 3, 8, codes, [](size_t, int g, size_t c) {
        if (c == 0) return g < 2 ? 3.0f : 0.0f;
        if (c == 1) return g == 0 ? 1.0f : g == 1 ? 2.0f : 1.5f;
        return 1.0f;
    });
    io::Table detectors;
    for (const char* name : {"FL1-H", "FL2-H", "FL3-H"}) detectors.channels.push_back({name, ""});
    const std::vector<std::string> columns{"FL1-H", "FL2-H", "FL3-H"};
    NamingInput input = namingInputFor(detectors, columns);
    EXPECT_TRUE(input.unnamed.empty());
    input.classes.assign(3, MarkerClass::Type);  // as the panel's classes would say
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "FL1-H+ FL2-Hdim");
    EXPECT_EQ(names[1].name, "FL1-H+ FL2-Hbright");
    EXPECT_EQ(names[2].name, "FL1-H-");
    io::Table stained = detectors;
    stained.channels[0].marker = "CD3";
    NamingInput beside = namingInputFor(stained, columns);
    EXPECT_EQ(beside.unnamed, (std::vector<bool>{false, true, true}));
    beside.classes.assign(3, MarkerClass::Type);
    const auto besideNames = namePopulations(points, codes, 3, beside);
    EXPECT_EQ(besideNames[0].name, "CD3+");
    EXPECT_EQ(besideNames[1].name, "CD3+ (2)");
    // A Beckman Coulter names its detectors with their amplifiers ("FL1 Log"): the names call
    // the detector, "FL2dim", not "FL2 Logdim"; a stain keeps its own name whatever it ends in.
    io::Table coulter;
    for (const char* name : {"FL1 Log", "FL2 LOG", "FL3 Lin"})
        coulter.channels.push_back({name, name});
    NamingInput amplified = namingInputFor(coulter, {"FL1 Log", "FL2 LOG", "FL3 Lin"});
    EXPECT_EQ(amplified.markers, (std::vector<std::string>{"FL1", "FL2", "FL3"}));
    amplified.classes.assign(3, MarkerClass::Type);
    EXPECT_EQ(namePopulations(points, codes, 3, amplified)[0].name, "FL1+ FL2dim");
    coulter.channels[0].marker = "Mouse Lin";  // a stain's own name, whatever it ends in
    EXPECT_EQ(namingInputFor(coulter, {"FL1 Log", "FL2 LOG", "FL3 Lin"}).markers[0], "Mouse Lin");
    // Not where another column goes by the shorter name already.
    coulter.channels[0].marker = "FL1 Log";
    coulter.channels.push_back({"FL1", ""});
    const NamingInput clash = namingInputFor(coulter, {"FL1 Log", "FL2 LOG", "FL1"});
    EXPECT_EQ(clash.markers, (std::vector<std::string>{"FL1 Log", "FL2", "FL1"}));
}

TEST(PopulationNames, StainsWrittenWithTheirChannelsSuffixAreNamedWithoutIt) {
    // An Attune writes each stain with its channel's suffix ("GFP-A" on BL1-A): a name says
    // "mCherrybright", not "mCherry-Abright". Where not every stain carries it, a marker that
    // ends so (HLA-A) keeps its name; a shorter name another column has already stays long.
    io::Table attune;
    attune.channels = {{"BL1-A", "GFP-A"}, {"YL2-A", "mCherry-A"}, {"VL1-A", "Alexa Fluor 405-A"}};
    const std::vector<std::string> three{"BL1-A", "YL2-A", "VL1-A"};
    EXPECT_EQ(namingInputFor(attune, three).markers,
              (std::vector<std::string>{"GFP", "mCherry", "Alexa Fluor 405"}));
    io::Table panel;
    panel.channels = {{"FITC-A", "HLA-A"}, {"PE-A", "CD3"}, {"APC-A", "CD19"}};
    EXPECT_EQ(namingInputFor(panel, {"FITC-A", "PE-A", "APC-A"}).markers,
              (std::vector<std::string>{"HLA-A", "CD3", "CD19"}));
    // BL1-H taken in by hand: its "GFP-H" would shorten to the "GFP" that BL1-A has.
    attune.channels.push_back({"BL1-H", "GFP-H"});
    EXPECT_EQ(namingInputFor(attune, {"BL1-A", "YL2-A", "BL1-H"}).markers,
              (std::vector<std::string>{"GFP", "mCherry", "GFP-H"}));
    // One stain on two channels ("GFP-A" on BL1-A and BL2-A): one name, on both.
    io::Table twice;
    twice.channels = {{"BL1-A", "GFP-A"}, {"BL2-A", "GFP-A"}, {"YL2-A", "mCherry-A"}};
    EXPECT_EQ(namingInputFor(twice, {"BL1-A", "BL2-A", "YL2-A"}).markers,
              (std::vector<std::string>{"GFP", "GFP", "mCherry"}));
    // The suffix as the instrument writes it: "TNF-a" and "IFN-a" (alpha) keep their names.
    io::Table alphas;
    alphas.channels = {{"PE-A", "TNF-a"}, {"APC-A", "IFN-a"}};
    EXPECT_EQ(namingInputFor(alphas, {"PE-A", "APC-A"}).markers,
              (std::vector<std::string>{"TNF-a", "IFN-a"}));
    // A stain without the suffix beside them: none is shortened.
    attune.channels.push_back({"BL2-A", "CD4"});
    EXPECT_EQ(namingInputFor(attune, {"BL1-A", "YL2-A", "BL2-A"}).markers,
              (std::vector<std::string>{"GFP-A", "mCherry-A", "CD4"}));
}

/// The generator's truth of a demo table: its code channel, named through SEPAL_POPULATIONS.
io::LabelColumn demoTruth(const io::Table& table) {
    io::Table labelled = table;
    io::recoverPopulationLabels(labelled);
    return labelled.labels.empty() ? io::LabelColumn{} : labelled.labels.front();
}

TEST(PopulationNames, TheDemosPopulationsGetTheirTrueNamesAndNoneContradictsItsMedians) {
    const io::Table table = demo::makeDemoTable(40000, 5, true);
    const io::LabelColumn truth = demoTruth(table);
    ASSERT_EQ(truth.categories.size(), 15u);
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    const Matrix points = fitAndApply(pipeline, table);
    auto search = makeCpuNearestSearch();
    EmbedSettings settings;
    settings.seed = 2;
    const LandmarkModel model = trainLandmarks(points, settings, *search, {}, nullptr);
    MetaclusterSettings groups;
    groups.k = 20;
    groups.weights =
        landmarkWeights(points, nearestLandmarks(points, model, *search), model.count());
    const auto codes = groupsOfPoints(points, model, metaclusterLandmarks(model, groups), *search);
    const NamingInput input = namingInputFor(table, pipeline.columns());
    const auto names = namePopulations(points, codes, groups.k, input);
    // A cell type's namesakes read "Naive CD8 T CD127+": the type is the name it was given.
    const auto given = [&](const PopulationName& n) {
        return n.cellType.empty() || n.doublets ? baseName(n.name) : n.cellType;
    };
    size_t right = 0;
    for (size_t i = 0; i < points.rows; ++i) {
        const std::string& name = truth.categories[size_t(truth.codes[i])];
        right += codes[i] >= 0 && given(names[size_t(codes[i])]) == name;
    }
    std::string listed;
    for (const auto& n : names) listed += n.name + " [" + n.phrase + "]; ";
    EXPECT_GE(double(right) / double(points.rows), 0.9) << listed;
    // No phrase calls a marker positive whose median is below its cut, or the other way round.
    const auto cuts = learnThresholds(points, input.classes);
    for (size_t p = 0; p < names.size(); ++p) {
        for (const auto& [c, up] : names[p].called) {
            std::vector<float> mine;
            for (size_t i = 0; i < points.rows; ++i)
                if (codes[i] == int32_t(p)) mine.push_back(points.at(i, c));
            const float median = medianOf(mine);
            // A marker on every cell is only ever called absent: below its dim floor.
            const float cut = cuts[c].onEveryCell ? cuts[c].dimFloor : cuts[c].positive;
            EXPECT_EQ(median >= cut, up)
                << names[p].name << ": " << input.markers[c] << (up ? "+" : "-")
                << " but the median is " << median << ", the cut " << cut;
            EXPECT_EQ(input.classes[c], MarkerClass::Type)
                << input.markers[c] << " is not a type marker";
        }
    }
}

TEST(PopulationNames, CellsACellTypeNamesAreNoDoubletsForTheirManyMarkers) {
    // Classical monocytes positive on 7 of 12 lineage markers (CD14, HLA-DR, CD33, CD11b, CD11c,
    // CCR2, CD38), as on a myeloid CyTOF panel, and negative on CD16, CD3 and CD19: their rule
    // holds, so they are no "Doublets (positive on 7 of 11 lineage markers)". Cells positive on
    // as many without a rule that holds still are.
    const std::vector<std::string> markers = {"CD14", "HLA-DR", "CD33", "CD11b", "CD11c", "CCR2",
                                              "CD38", "CD16",   "CD3",  "CD19",  "CD4",   "CD45RA"};
    std::vector<int32_t> codes;
    const Matrix points =
        noisyCells(12000, markers.size(), 4, 12, codes, [](size_t, int g, size_t c) {
            if (g == 0) return c < 7 ? 3.0f : 0.0f;                         // monocytes
            if (g == 1) return c == 8 || c == 10 || c == 11 ? 3.0f : 0.0f;  // CD4 T
            if (g == 2) return c == 9 || c == 1 || c == 11 ? 3.0f : 0.0f;   // B
            return c < 7 || c == 8 ? 3.0f : 0.0f;                           // also CD3+: stuck
        });
    const NamingInput input{markers, std::vector<MarkerClass>(markers.size(), MarkerClass::Type)};
    const auto names = namePopulations(points, codes, 4, input);
    EXPECT_EQ(names[0].name, "Classical monocytes") << names[0].phrase;
    EXPECT_FALSE(names[0].doublets);
    EXPECT_TRUE(names[3].doublets) << names[3].name;
    // A rule the data confirm on two conditions only does not outweigh the count.
    const std::vector<CellTypeRule> loose = {{"Mono", parseMarkerRule("CD14+ CD3-", "test"), ""}};
    NamingInput looseInput = input;
    looseInput.rules = &loose;
    EXPECT_TRUE(namePopulations(points, codes, 4, looseInput)[0].doublets);
}

TEST(PopulationNames, AnExclusionNoCutCanCallHoldsUnlessThePopulationIsAmongTheBrightest) {
    // A rule "Tx" of three conditions, A+ U- C-, where U has one mode (no cut): P0 and P1 are A+
    // C-, P0 dim on U, P1 bright (its U median over one of all cells' spreads above theirs).
    // P0 is Tx (a three-condition rule named nothing with an unknown "-": CytoNorm's T cells,
    // CD19 without a cut, were no "T cells"); P1 is not, its phrase names it (a rule's "CD45RA-"
    // named CytoNorm's brightest CD45RA T cells).
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(9000, 3, 3, 21, codes, [](size_t i, int g, size_t c) {
        const float ramp = float(i % 101) / 100.0f;  // spread evenly: no valley on U
        if (c == 0) return g < 2 ? 3.0f : 0.0f;
        if (c == 1) return (g == 0 ? 1.0f : g == 1 ? 2.6f : 1.6f) + 1.6f * ramp;
        return g == 2 ? 3.0f : 0.0f;
    });
    // Ty, a sibling positive on U, makes U- a condition that parts Tx from it; without one, U-
    // excludes another lineage, which a bright population does not make doubtful.
    std::vector<CellTypeRule> rules = {{"Tx", parseMarkerRule("A+ U- C-", "test"), ""},
                                       {"Ty", parseMarkerRule("A+ U+", "test"), ""}};
    NamingInput input{{"A", "U", "C"}, std::vector<MarkerClass>(3, MarkerClass::Type)};
    input.rules = &rules;
    ASSERT_FALSE(learnThresholds(points, input.classes)[1].resolved)
        << "U is meant to have one mode";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "Tx") << names[0].phrase;
    EXPECT_TRUE(names[1].cellType.empty()) << names[1].name;
    rules.pop_back();
    EXPECT_EQ(namePopulations(points, codes, 3, input)[1].cellType, "Tx");
}

TEST(PopulationNames, CD8TCellsBrightOnCD45RAAreNoMemoryCells) {
    // CD8 T cells without CCR7 or CD57: those without CD45RA are memory cells; those bright on it
    // (naive-like, or effectors re-expressing it) were called "Memory CD8 T ... CD45RAbright",
    // which no immunologist reads without a frown: they are CD8 T cells.
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(9000, 6, 3, 31, codes, [](size_t, int g, size_t c) {
        switch (c) {
            case 0:
                return g < 2 ? 3.0f : 0.0f;  // CD3
            case 1:
                return g < 2 ? 3.0f : 0.0f;  // CD8
            case 3:
                return g == 0 ? 3.5f : g == 1 ? 0.2f : 2.0f;  // CD45RA
            default:
                return g == 2 ? 3.0f : 0.2f;  // CD4, CCR7, CD57: a cut from the others
        }
    });
    const NamingInput input{{"CD3", "CD8", "CD4", "CD45RA", "CCR7", "CD57"},
                            std::vector<MarkerClass>(6, MarkerClass::Type)};
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[1].cellType, "Memory CD8 T") << names[1].phrase;
    EXPECT_EQ(names[0].cellType, "CD8 T") << names[0].name << ": " << names[0].phrase;
}

TEST(PopulationNames, CellTypeNamesakesAreNotToldApartByAMarkerTheirRuleExcludes) {
    // "Tx" is A+ U- C-; U has one mode (no cut), high on every cell, and its two Tx populations
    // part most on U, less on B. "Tx Ubright" would say what the name denies: they read "Tx
    // Bbright" and "Tx Bdim" (CytoNorm's "Neutrophils CD19bright" of a rule CD19-).
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(9000, 4, 3, 41, codes, [](size_t i, int g, size_t c) {
        const float ramp = float(i % 101) / 100.0f;  // spread evenly: no valley on U or B
        if (c == 0) return g < 2 ? 3.0f : 0.0f;      // A
        if (c == 1) return (g == 0 ? 1.0f : g == 1 ? 3.0f : 2.0f) + 1.0f * ramp;  // U
        if (c == 2) return g == 2 ? 3.0f : 0.0f;                                  // C
        return (g == 0 ? 1.0f : g == 1 ? 2.0f : 1.5f) + 0.6f * ramp;              // B
    });
    const std::vector<CellTypeRule> rules = {{"Tx", parseMarkerRule("A+ U- C-", "test"), ""}};
    NamingInput input{{"A", "U", "C", "B"}, std::vector<MarkerClass>(4, MarkerClass::Type)};
    input.rules = &rules;
    ASSERT_FALSE(learnThresholds(points, input.classes)[1].resolved) << "U has one mode";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "Tx Bdim") << names[0].phrase;
    EXPECT_EQ(names[1].name, "Tx Bbright") << names[1].phrase;
}

TEST(PopulationNames, NamesakesAreNotToldApartByAMarkerOfALineageTheyLack) {
    // Two CD3+ populations and a CD3- one; CD19 and CD28 have one mode each (no cut), and the
    // two CD3+ ones part most on CD19, less on CD28. "CD3+ CD19bright" would read as B cells
    // among T cells (a T cell flow file's "CD127+ CD27+ CD3dim CCR5+ CD28bright CD19bright"):
    // they read "CD3+ CD28dim" and "CD3+ CD28bright".
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(9000, 3, 3, 8, codes, [](size_t i, int g, size_t c) {
        const float ramp = float(i % 101) / 100.0f;  // spread evenly: no valley
        if (c == 0) return g < 2 ? 3.0f : 0.0f;      // CD3
        if (c == 1) return (g == 0 ? 1.0f : g == 1 ? 3.0f : 2.0f) + 1.0f * ramp;  // CD19
        return (g == 0 ? 1.0f : g == 1 ? 2.0f : 1.5f) + 0.6f * ramp;              // CD28
    });
    const NamingInput input{{"CD3", "CD19", "CD28"},
                            std::vector<MarkerClass>(3, MarkerClass::Type)};
    const auto cuts = learnThresholds(points, input.classes);
    ASSERT_TRUE(cuts[0].resolved);
    ASSERT_FALSE(cuts[1].resolved) << "CD19 is meant to have one mode";
    const auto names = namePopulations(points, codes, 3, input);
    EXPECT_EQ(names[0].name, "CD3+ CD28dim");
    EXPECT_EQ(names[1].name, "CD3+ CD28bright");
}

TEST(PopulationNames, AGatesPopulationsAreCalledOnEveryCellsCuts) {
    // The demo's CD4 T cells (naive, memory, Treg) as a gate: CD4 and CD3 are on every one of
    // them, so cuts learnt from the gate alone cannot call them and the names lose the cell
    // types; cuts learnt from every cell name each population as the generator made it.
    const io::Table table = demo::makeDemoTable(30000, 3, true);
    const io::LabelColumn truth = demoTruth(table);
    ASSERT_FALSE(truth.categories.empty());
    const std::vector<std::string> kinds = {"Naive CD4 T", "Memory CD4 T", "Treg"};
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    const Matrix every = fitAndApply(pipeline, table);
    std::vector<size_t> inside;
    std::vector<int32_t> codes;
    for (size_t i = 0; i < every.rows; ++i) {
        const auto kind = std::find(kinds.begin(), kinds.end(), truth.categories[truth.codes[i]]);
        if (kind == kinds.end()) continue;
        inside.push_back(i);
        codes.push_back(int32_t(kind - kinds.begin()));
    }
    Matrix gated(inside.size(), every.cols);
    for (size_t r = 0; r < inside.size(); ++r)
        std::copy_n(every.row(inside[r]), every.cols, gated.row(r));
    NamingInput input = namingInputFor(table, pipeline.columns());
    const auto alone = namePopulations(gated, codes, kinds.size(), input);
    size_t typed = 0;
    for (const auto& n : alone) typed += !n.cellType.empty();
    EXPECT_LT(typed, kinds.size()) << "the gate's own cuts were meant to lose a cell type";
    input.cutsFrom = &every;
    const auto named = namePopulations(gated, codes, kinds.size(), input);
    for (size_t p = 0; p < kinds.size(); ++p) EXPECT_EQ(named[p].name, kinds[p]) << named[p].phrase;
    Matrix narrow(2, every.cols - 1);
    input.cutsFrom = &narrow;
    EXPECT_THROW(namePopulations(gated, codes, kinds.size(), input), std::invalid_argument);
}

TEST(PopulationNames, APopulationLikeAllCellsIsNamedByItsClearestCalls) {
    // Four populations, three of them A+ and B+ like most cells; one A- B-. The A+ B+ ones set
    // themselves apart from all cells by nothing, yet each is A+ B+, and says so.
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(8000, 2, 4, 9, codes, [](size_t, int g, size_t c) {
        const float up = g < 3 ? 3.0f : 0.0f;
        return up + (c == 1 && g == 0 ? 0.8f : 0.0f);
    });
    const NamingInput input{{"A", "B"}, {MarkerClass::Type, MarkerClass::Type}};
    const auto names = namePopulations(points, codes, 4, input);
    EXPECT_EQ(names[3].name, "A- B-");
    for (int g = 0; g < 3; ++g) EXPECT_EQ(baseName(names[size_t(g)].name), "A+ B+") << g;
}

TEST(PopulationNames, TheSameCallsInAnotherOrderAreOneName) {
    // X is A+ more clearly than C+, Y the other way round: their phrases list the same calls
    // in two orders ("A+ C+", "C+ A+"), which must read as one name.
    std::vector<int32_t> codes;
    const Matrix points = noisyCells(8000, 2, 4, 10, codes, [](size_t i, int g, size_t c) {
        const bool some = (i / 4) % 5 != 0;  // 80 % of the cells
        const int clear = c == 0 ? 0 : 1;    // X is clearly A+, Y clearly C+
        return g == clear || (g == 1 - clear && some) ? 3.0f : 0.0f;
    });
    const NamingInput input{{"A", "C"}, {MarkerClass::Type, MarkerClass::Type}};
    const auto names = namePopulations(points, codes, 4, input);
    EXPECT_EQ(names[0].name, "A+ C+");
    EXPECT_EQ(names[1].name, "A+ C+ (2)");
}

}  // namespace
}  // namespace sepal
