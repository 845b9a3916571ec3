// A comparison of some of the samples (--samples, the Compare window's "samples"): the samples
// left out are out of the design, the tests and the box plots, exactly as if their counts had
// never been there.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/stats/study_pictures.h"
#include "core/stats/study_statistics.h"

namespace sepal::stats {
namespace {

SampleMetadata batchedStudy() {
    SampleMetadata m;
    m.source = "samples.csv";
    m.columns = {"condition", "patient", "type"};
    const char* rows[][4] = {
        {"P1_unstim", "unstim", "P1", "sample"},  {"P1_stim", "stim", "P1", "sample"},
        {"P2_unstim", "unstim", "P2", "sample"},  {"P2_stim", "stim", "P2", "sample"},
        {"P3_unstim", "unstim", "P3", "sample"},  {"P3_stim", "stim", "P3", "sample"},
        {"Ref_b1", "unstim", "Ref", "reference"}, {"Ref_b2", "unstim", "Ref", "reference"}};
    for (const auto& r : rows) {
        m.files.push_back(r[0]);
        m.values.push_back({r[1], r[2], r[3]});
    }
    return m;
}

/// Counts of four populations in the study's eight samples (and a ninth the metadata does not
/// list): the first population twice as frequent when stimulated, the references alike.
AbundanceTable batchedCounts() {
    AbundanceTable t;
    t.samples = {"P1_unstim", "P1_stim", "P2_unstim", "P2_stim", "P3_unstim",
                 "P3_stim",   "Ref_b1",  "Ref_b2",    "stray"};
    t.populations = {"A", "B", "C", "unassigned"};
    t.cells.resize(4, 9);
    t.cells << 500, 1030, 610, 1190, 450, 880, 520, 515, 300,  //
        2000, 1900, 2300, 2150, 1800, 1750, 2010, 2020, 900,   //
        800, 760, 950, 910, 700, 690, 805, 790, 400,           //
        40, 35, 52, 41, 33, 38, 40, 42, 10;
    return t;
}

StudyRequest pairedRequest() {
    StudyRequest r;
    r.formula = "condition + patient";
    r.contrast = "condition:stim-unstim";
    return r;
}

TEST(StudySamples, LeftOutSamplesAreAsIfNeverCounted) {
    const SampleMetadata m = batchedStudy();
    const AbundanceTable all = batchedCounts();
    StudyRequest chosen = pairedRequest();
    chosen.samples = {"type", {"sample"}, false};
    const StudyResult filtered = compareConditions(all, m, chosen);
    const std::vector<std::string> patients = {"P1_unstim", "P1_stim",   "P2_unstim",
                                               "P2_stim",   "P3_unstim", "P3_stim"};
    const StudyResult alone = compareConditions(keepSamples(all, patients), m, pairedRequest());
    EXPECT_EQ(filtered.design.samples, patients);
    EXPECT_EQ(filtered.design.matrix, alone.design.matrix);
    ASSERT_EQ(filtered.abundance.size(), 3u);  // unassigned is no population
    for (size_t p = 0; p < 3; ++p) {
        EXPECT_EQ(filtered.abundance[p].logFC, alone.abundance[p].logFC);
        EXPECT_EQ(filtered.abundance[p].pValue, alone.abundance[p].pValue);
    }
    EXPECT_LT(filtered.abundance[0].pAdjusted, 0.05);
    // The box plots show the compared samples only, each with its own frequency.
    const raster::BoxPlotInput plots = abundanceBoxPlots(all, filtered, m, "patient");
    EXPECT_EQ(plots.samples, patients);
    EXPECT_EQ(plots.pairing, (std::vector<std::string>{"P1", "P1", "P2", "P2", "P3", "P3"}));
    ASSERT_EQ(plots.frequencies.size(), 3 * patients.size());
    const double p1Stim = 100.0 * 1030 / (1030 + 1900 + 760 + 35);
    EXPECT_DOUBLE_EQ(plots.frequencies[1], p1Stim);  // A is tested first: it differs
    // Every sample, the stray one unlisted: refused as before, naming it.
    EXPECT_THROW(compareConditions(all, m, pairedRequest()), InputError);
}

TEST(StudySamples, AllButTheReferencesKeepsEverySampleElse) {
    const SampleMetadata m = batchedStudy();
    AbundanceTable all = batchedCounts();
    all = keepSamples(all, {"P1_unstim", "P1_stim", "P2_unstim", "P2_stim", "P3_unstim", "P3_stim",
                            "Ref_b1", "Ref_b2"});
    StudyRequest without = pairedRequest();
    without.samples = {"type", {"reference"}, true};
    EXPECT_EQ(compareConditions(all, m, without).design.samples.size(), 6u);
    // Left in, the references are a third patient of two unstimulated samples.
    EXPECT_EQ(compareConditions(all, m, pairedRequest()).design.samples.size(), 8u);
    StudyRequest onlyReferences = pairedRequest();
    onlyReferences.samples = {"type", {"reference"}, false};
    EXPECT_THROW(compareConditions(all, m, onlyReferences), InputError);  // no stim sample
    EXPECT_THROW(keepSamples(all, {"P9"}), InputError);
}

}  // namespace
}  // namespace sepal::stats
