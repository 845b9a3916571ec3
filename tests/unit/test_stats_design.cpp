#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/stats/study_design.h"

namespace sepal::stats {
namespace {

SampleMetadata cohort() {
    SampleMetadata m;
    m.source = "samples.csv";
    m.columns = {"condition", "patient", "age"};
    const char* rows[][4] = {
        {"a_unstim.fcs", "unstim", "P1", "31"},   {"a_stim.fcs", "stim", "P1", "31"},
        {"b_unstim.fcs", "unstim", "P2", "45"},   {"b_stim.fcs", "stim", "P2", "45"},
        {"c_unstim.fcs", "unstim", "P3", "52.5"}, {"c_stim.fcs", "stim", "P3", "52.5"}};
    for (const auto& r : rows) {
        m.files.push_back(r[0]);
        m.values.push_back({r[1], r[2], r[3]});
    }
    return m;
}

const std::vector<std::string> kSamples = {"a_unstim", "a_stim",   "b_unstim",
                                           "b_stim",   "c_unstim", "c_stim"};

// As R's model.matrix(~ condition + patient): levels sorted, the first the reference.
TEST(StudyDesign, FactorsAsRBuildsThem) {
    const StudyDesign d =
        buildStudyDesign(cohort(), kSamples, "condition + patient", "condition:stim-unstim");
    EXPECT_EQ(d.coefficients, (std::vector<std::string>{"(Intercept)", "conditionunstim",
                                                        "patientP2", "patientP3"}));
    // stim sorts before unstim, so it is the reference: stim - unstim is -conditionunstim.
    EXPECT_EQ(d.contrast(1), -1.0);
    EXPECT_EQ(d.contrast.sum(), -1.0);
    EXPECT_EQ(d.matrix(0, 1), 1.0);  // a_unstim
    EXPECT_EQ(d.matrix(1, 1), 0.0);  // a_stim
    EXPECT_EQ(d.matrix(5, 3), 1.0);  // c_stim is P3
    EXPECT_EQ(d.contrastText, "condition: stim - unstim");
    EXPECT_EQ(d.groupOf[2], "unstim");
    // A reference chosen: unstim first, stim - unstim is +conditionstim.
    const StudyDesign r = buildStudyDesign(cohort(), kSamples, "condition+patient",
                                           "condition:stim", {{"condition", "unstim"}});
    EXPECT_EQ(r.coefficients[1], "conditionstim");
    EXPECT_EQ(r.contrast(1), 1.0);
}

TEST(StudyDesign, NumericColumnsAreCovariates) {
    const StudyDesign d = buildStudyDesign(cohort(), kSamples, "condition + age", "age");
    EXPECT_EQ(d.coefficients, (std::vector<std::string>{"(Intercept)", "conditionunstim", "age"}));
    EXPECT_EQ(d.matrix(4, 2), 52.5);
    EXPECT_EQ(d.contrast(2), 1.0);
}

TEST(StudyDesign, ImpossibleDesignsAreRefusedWithTheirReason) {
    const auto refused = [](const std::string& formula, const std::string& contrast,
                            const std::string& part, std::vector<std::string> samples = kSamples) {
        try {
            buildStudyDesign(cohort(), samples, formula, contrast);
            ADD_FAILURE() << formula << " / " << contrast << " was accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    refused("condition + batch", "condition:unstim", "'batch' is no column of samples.csv");
    // age is the same within each patient: nested, not of full rank.
    refused("condition + patient + age", "condition:unstim", "age is a combination");
    refused("condition", "condition:stim-resting", "'resting' is no level of condition");
    refused("condition", "patient:P2", "'patient' is no term of the design");
    refused("condition", "condition:unstim", "no row describes the sample 'd_stim'",
            {"a_unstim", "a_stim", "d_stim"});
    refused("condition", "condition:unstim", "needs at least two",
            {"a_unstim", "a_stim", "b_unstim"});
    refused("condition + + patient", "condition:unstim", "an empty term");
    refused("condition + patient", "condition:unstim", "more samples than coefficients",
            {"a_unstim", "a_stim", "b_unstim"});
}

}  // namespace
}  // namespace sepal::stats
