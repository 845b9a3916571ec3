// Population names never contradict the data, on every real file of ../shared/data/fcs with
// markers and on the four CytoNorm CyTOF files (one by one and pooled): every marker a name
// calls positive (its phrase, or the conditions of its cell type) has its population's median
// at or above the marker's learnt cut, every one it calls negative below it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/cluster/metaclusters.h"
#include "core/cluster/population_naming.h"
#include "core/common/median.h"
#include "core/embedsom/embedsom.h"
#include "core/io/fcs_reader.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"
#include "test_paths.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

/// The median of column c over the cells of population p.
float populationMedian(const Matrix& points, const std::vector<int32_t>& codes, int32_t p,
                       size_t c) {
    std::vector<float> v;
    for (size_t i = 0; i < points.rows; ++i)
        if (codes[i] == p && std::isfinite(points.at(i, c))) v.push_back(points.at(i, c));
    return v.empty() ? NAN : medianOf(v);
}

/// Names populations of `table` as embed --metaclusters 8 does (on at most 20,000 cells and 64
/// landmarks, for speed) and checks each name against the medians; returns the names.
std::vector<PopulationName> checkNames(const io::Table& whole) {
    std::vector<uint8_t> keep(whole.events(), 0);
    const size_t step = std::max<size_t>(1, whole.events() / 20000);
    for (size_t i = 0; i < keep.size(); i += step) keep[i] = 1;
    const io::Table table = io::keepRows(whole, keep);
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    const Matrix points = fitAndApply(pipeline, table);
    if (points.rows < 500 || points.cols < 3) return {};
    auto search = makeCpuNearestSearch();
    EmbedSettings settings;
    settings.landmarks.count = 64;
    settings.trainSample = 5000;
    const LandmarkModel model = trainLandmarks(points, settings, *search, {}, nullptr);
    MetaclusterSettings groups;
    groups.k = 8;
    groups.weights =
        landmarkWeights(points, nearestLandmarks(points, model, *search), model.count());
    const auto codes = groupsOfPoints(points, model, metaclusterLandmarks(model, groups), *search);
    const NamingInput input = namingInputFor(table, pipeline.columns());
    const auto names = namePopulations(points, codes, groups.k, input);
    const auto cuts = learnThresholds(points, input.classes);
    const auto columnOf = [&](const std::string& marker) -> int {
        for (size_t c = 0; c < input.markers.size(); ++c)
            if (input.classes[c] == MarkerClass::Type &&
                markerKey(catalogueEntry(input.markers[c]) ? catalogueEntry(input.markers[c])->name
                                                           : input.markers[c]) ==
                    markerKey(catalogueEntry(marker) ? catalogueEntry(marker)->name : marker))
                return int(c);
        return -1;
    };
    for (size_t p = 0; p < names.size(); ++p) {
        SCOPED_TRACE(names[p].name + " [" + names[p].phrase + "]");
        std::vector<MarkerCondition> said;
        for (const auto& [c, up] : names[p].called)
            said.push_back({input.markers[c], up ? MarkerCall::Positive : MarkerCall::Negative});
        const size_t fromPhrase = said.size();
        for (const CellTypeRule& r : builtInCellTypes())
            if (r.name == names[p].cellType) {
                // The rule that named it is the last that holds; any rule of that name.
                for (const MarkerCondition& c : r.conditions) said.push_back(c);
                break;
            }
        for (size_t i = 0; i < said.size(); ++i) {
            const MarkerCondition& c = said[i];
            const int column = columnOf(c.marker);
            if (column < 0 || !cuts[size_t(column)].resolved) continue;  // unknown to the panel
            const MarkerThreshold& t = cuts[size_t(column)];
            const float median = populationMedian(points, codes, int32_t(p), size_t(column));
            const bool brightCall = c.call == MarkerCall::Bright || c.call == MarkerCall::NotBright;
            // On a marker on every cell a phrase says only that cells lack it (below its dim
            // floor); a rule's plus or minus there tells nothing (the verdict is unknown).
            const bool lacks = t.onEveryCell && i < fromPhrase && c.call == MarkerCall::Negative;
            if (t.onEveryCell && !brightCall && !lacks) continue;
            const float cut = brightCall && t.hasBright ? t.bright
                              : lacks                   ? t.dimFloor
                                                        : t.positive;
            const bool up = c.call == MarkerCall::Positive || c.call == MarkerCall::Bright;
            EXPECT_EQ(median >= cut, up) << c.marker << ": median " << median << ", cut " << cut;
        }
    }
    return names;
}

TEST(PopulationNamesReal, NoNameContradictsItsMediansOnAnyRealFile) {
    const fs::path dir = test::sharedDataDir() / "fcs";
    std::ifstream in(dir / "manifest.json");
    if (!in) GTEST_SKIP() << test::sharedDataMissing(dir / "manifest.json");
    const nlohmann::json manifest = nlohmann::json::parse(in);
    size_t named = 0;
    for (const auto& f : manifest["files"]) {
        if (f["datasets"].is_null() || !f["must_fail"].is_null()) continue;
        const std::string path = (dir / f["file"].get<std::string>()).string();
        SCOPED_TRACE(path);
        named += !checkNames(io::readFcs(path)).empty();
    }
    EXPECT_GE(named, 5u) << "too few real files had populations to name";
}

TEST(PopulationNamesReal, TheCytoNormFilesOneByOneAndPooled) {
    const fs::path dir = test::sharedDataDir() / "fcs" / "cytonorm";
    if (!fs::exists(dir)) GTEST_SKIP() << test::sharedDataMissing(dir);
    std::vector<io::Table> tables;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".fcs") tables.push_back(io::readFcs(e.path().string()));
    ASSERT_EQ(tables.size(), 4u);
    for (const io::Table& t : tables) {
        SCOPED_TRACE(t.source);
        checkNames(t);
    }
    const auto pooled = checkNames(concatenateSamples(tables, "sample"));
    ASSERT_EQ(pooled.size(), 8u);
    // The granulocytes (about half the cells of these controls) have a name, not a number.
    for (const PopulationName& n : pooled)
        EXPECT_EQ(n.name.rfind("population ", 0), std::string::npos) << n.name;

    // The live cells (a clean-up gate: DNA1 at arcsinh(x/5) of 3 or more, cisplatin below 0.4)
    // keep the lineages' names: 0.8 % of them read exactly 0 on CD66, which made CD66's
    // negative mode and named the T cells and monocytes doublets "CD3+ CD66+" and "CD14+ CD66+".
    const io::Table all = concatenateSamples(tables, "sample");
    const int dna = all.findChannel("Ir191Di"), cisplatin = all.findChannel("Pt195Di");
    ASSERT_GE(dna, 0);
    ASSERT_GE(cisplatin, 0);
    std::vector<uint8_t> live(all.events(), 0);
    for (size_t i = 0; i < live.size(); ++i)
        live[i] = std::asinh(all.values.at(i, size_t(dna)) / 5.0f) >= 3.0f &&
                  std::asinh(all.values.at(i, size_t(cisplatin)) / 5.0f) < 0.4f;
    const auto gated = checkNames(io::keepRows(all, live));
    std::string names;
    for (const PopulationName& n : gated) names += n.name + "; ";
    EXPECT_NE(names.find("CD4 T; "), std::string::npos) << names;
    EXPECT_EQ(names.find("CD66+)"), std::string::npos) << names;
}

}  // namespace
}  // namespace sepal
