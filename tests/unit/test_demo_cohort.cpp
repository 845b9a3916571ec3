// The generated study: patients under two conditions, with the planted effects in the second
// condition's cells and the patients' own variation shared by their samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/demo/demo_cohort.h"

namespace sepal {
namespace {

size_t channelOf(const io::Table& t, const std::string& nameOrMarker) {
    for (size_t c = 0; c < t.channels.size(); ++c)
        if (t.channels[c].name == nameOrMarker || t.channels[c].marker == nameOrMarker) return c;
    ADD_FAILURE() << "no channel " << nameOrMarker;
    return 0;
}

/// Cells of each demo population in a sample, and the median arcsinh(x / 5) of `marker` in
/// population `of`.
struct SampleFacts {
    std::vector<double> cells;
    double median = 0;
};

SampleFacts factsOf(const io::Table& t, const std::string& marker, const std::string& of) {
    const auto names = demo::demoPopulationNames();
    const size_t code = channelOf(t, "Population"), m = channelOf(t, marker);
    const size_t target = size_t(std::find(names.begin(), names.end(), of) - names.begin());
    SampleFacts f{std::vector<double>(names.size(), 0), 0};
    std::vector<double> values;
    for (size_t i = 0; i < t.events(); ++i) {
        const auto p = size_t(t.values.row(i)[code]);
        f.cells[p] += 1;
        if (p == target) values.push_back(std::asinh(t.values.row(i)[m] / 5.0));
    }
    std::nth_element(values.begin(), values.begin() + long(values.size() / 2), values.end());
    f.median = values[values.size() / 2];
    return f;
}

TEST(DemoCohort, SamplesArePatientsUnderEachCondition) {
    const auto samples = demo::cohortSamples({2, {"unstim", "stim", "late"}, 1000, 4});
    ASSERT_EQ(samples.size(), 6u);
    EXPECT_EQ(samples[0].name, "P1_unstim");
    EXPECT_EQ(samples[4].name, "P2_stim");
    EXPECT_EQ(samples[5].condition, "late");
    EXPECT_EQ(samples[5].patient, "P2");
    // The same cohort for the same seed, another for another.
    const auto again = demo::cohortSamples({2, {"unstim", "stim", "late"}, 1000, 4});
    const auto other = demo::cohortSamples({2, {"unstim", "stim", "late"}, 1000, 5});
    EXPECT_EQ(again[3].variation.abundance, samples[3].variation.abundance);
    EXPECT_NE(other[3].variation.abundance, samples[3].variation.abundance);
    EXPECT_THROW(demo::cohortSamples({0, {"a", "b"}, 10, 1}), InputError);
    EXPECT_THROW(demo::cohortSamples({2, {"a"}, 10, 1}), InputError);
}

TEST(DemoCohort, TheSecondConditionCarriesThePlantedEffects) {
    const auto samples = demo::cohortSamples({1, {"unstim", "stim"}, 60000, 2});
    const auto names = demo::demoPopulationNames();
    const auto index = [&](const std::string& n) {
        return size_t(std::find(names.begin(), names.end(), n) - names.begin());
    };
    std::vector<SampleFacts> facts;
    for (const auto& s : samples)
        facts.push_back(
            factsOf(demo::makeDemoTable(60000, s.seed, true, s.variation), "pSTAT5", "Treg"));
    const auto ratio = [&](const std::string& population) {
        const size_t p = index(population);
        return (facts[1].cells[p] / 60000) / (facts[0].cells[p] / 60000);
    };
    // Planted: Memory CD8 T doubled (its cluster; the cells on its path stay), Naive B a
    // quarter; others within the samples' noise. pSTAT5 in Tregs up by one.
    EXPECT_GT(ratio("Memory CD8 T"), 1.5);
    EXPECT_NEAR(ratio("Naive B"), 0.25, 0.06);
    EXPECT_NEAR(ratio("Naive CD4 T"), 1.0, 0.2);
    EXPECT_NEAR(ratio("CD56dim NK"), 1.0, 0.2);
    EXPECT_NEAR(facts[1].median - facts[0].median, 1.0, 0.25);
    EXPECT_EQ(demo::plantedEffects().size(), 4u);
}

TEST(DemoCohort, UnknownPopulationsOrMarkersAreRefused) {
    demo::DemoVariation v;
    v.abundance["Martians"] = 2;
    EXPECT_THROW(demo::makeDemoTable(10, 1, true, v), InputError);
    demo::DemoVariation w;
    w.stateShift[{"Treg", "CD3"}] = 1;  // a lineage marker, not a state marker
    EXPECT_THROW(demo::makeDemoTable(10, 1, true, w), InputError);
}

TEST(DemoCohort, BatchesScaleTheirMarkersAndEachHasAReferenceSample) {
    demo::CohortSpec spec;
    spec.patients = 4;
    spec.events = 2000;
    const auto plain = demo::cohortSamples(spec);
    spec.batches = 2;
    const auto batched = demo::cohortSamples(spec);
    ASSERT_EQ(batched.size(), plain.size() + 2);
    // The patients' cells are those of the cohort without batches; each patient in one batch.
    for (size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(batched[i].name, plain[i].name);
        EXPECT_EQ(batched[i].seed, plain[i].seed);
        EXPECT_EQ(batched[i].variation.abundance, plain[i].variation.abundance);
        EXPECT_EQ(batched[i].batch, i / 2 % 2 == 0 ? "b1" : "b2") << batched[i].name;
        EXPECT_FALSE(batched[i].reference);
        EXPECT_TRUE(plain[i].batch.empty() && plain[i].batchFactor.empty());
    }
    const auto& ref1 = batched[plain.size()];
    const auto& ref2 = batched[plain.size() + 1];
    EXPECT_EQ(ref1.name, "Ref_b1");
    EXPECT_EQ(ref2.name, "Ref_b2");
    EXPECT_TRUE(ref1.reference && ref2.reference);
    EXPECT_EQ(ref1.condition, "unstim");
    EXPECT_EQ(ref1.variation.abundance.size(), ref2.variation.abundance.size());
    EXPECT_EQ(ref1.batchFactor, batched[0].batchFactor);  // P1 is in b1
    EXPECT_EQ(ref2.batchFactor, batched[2].batchFactor);  // P2 in b2
    EXPECT_NE(ref1.batchFactor, ref2.batchFactor);
    // The factors multiply the marker channels and nothing else.
    const io::Table scaled = demo::cohortTable(batched[2], spec.events);
    const io::Table as = demo::makeDemoTable(spec.events, plain[2].seed, true, plain[2].variation);
    const double cd3 = batched[2].batchFactor.at("CD3");
    EXPECT_NE(cd3, 1.0);
    const size_t c = channelOf(as, "CD3"), time = channelOf(as, "Time");
    for (size_t i = 0; i < as.events(); i += 97) {
        EXPECT_FLOAT_EQ(scaled.values.at(i, c), float(as.values.at(i, c) * cd3));
        EXPECT_EQ(scaled.values.at(i, time), as.values.at(i, time));
    }
    spec.batches = 5;  // more batches than patients
    EXPECT_THROW(demo::cohortSamples(spec), InputError);
}

}  // namespace
}  // namespace sepal
