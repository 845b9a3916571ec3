// Samples chosen by their metadata ("type=control", "type!=reference"): the text read and
// written back, the samples chosen, and what is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/pipeline/sample_filter.h"

namespace sepal {
namespace {

SampleMetadata study() {
    SampleMetadata m;
    m.source = "samples.csv";
    m.columns = {"condition", "type"};
    m.files = {"P1_unstim.fcs", "P1_stim.fcs", "Ref_b1.fcs", "Ref_b2.fcs", "spare.fcs"};
    m.values = {{"unstim", "sample"},
                {"stim", "sample"},
                {"unstim", "reference"},
                {"unstim", "reference"},
                {"unstim", "spare"}};
    return m;
}

const std::vector<std::string> kPaths = {"P1_unstim", "P1_stim", "Ref_b1",
                                         "Ref_b2",    "spare",   "unlisted"};

TEST(SampleFilter, ReadsAndWritesBackItsText) {
    EXPECT_TRUE(parseSampleFilter("", "--samples").all());
    EXPECT_TRUE(parseSampleFilter("  ", "--samples").all());
    const SampleFilter only = parseSampleFilter("type=sample", "--samples");
    EXPECT_EQ(only, (SampleFilter{"type", {"sample"}, false}));
    const SampleFilter without = parseSampleFilter(" type != reference, spare ", "--samples");
    EXPECT_EQ(without, (SampleFilter{"type", {"reference", "spare"}, true}));
    EXPECT_EQ(without.text(), "type!=reference,spare");
    EXPECT_EQ(parseSampleFilter(without.text(), "--samples"), without);
    EXPECT_EQ(SampleFilter{}.text(), "");
}

TEST(SampleFilter, ChoosesByValueOrAllButTheValues) {
    const SampleMetadata m = study();
    EXPECT_EQ(chosenSamples(parseSampleFilter("type=sample", "x"), m, kPaths, "x"),
              (std::vector<bool>{true, true, false, false, false, false}));
    EXPECT_EQ(chosenSamples(parseSampleFilter("type=sample,spare", "x"), m, kPaths, "x"),
              (std::vector<bool>{true, true, false, false, true, false}));
    // All but: a sample the metadata does not list has no value, so it stays.
    EXPECT_EQ(chosenSamples(parseSampleFilter("type!=reference", "x"), m, kPaths, "x"),
              (std::vector<bool>{true, true, false, false, true, true}));
    EXPECT_EQ(chosenSamples(SampleFilter{}, m, kPaths, "x"), std::vector<bool>(6, true));
}

TEST(SampleFilter, RefusesMalformedTextUnknownColumnsAndValuesNoSampleHas) {
    const auto message = [](auto f) {
        try {
            f();
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    for (const char* bad : {"type", "=sample", "!=sample", "type=", "type=a,,b", "type!="})
        EXPECT_NE(message([&] { parseSampleFilter(bad, "--samples"); }).find("--samples"),
                  std::string::npos)
            << bad;
    const SampleMetadata m = study();
    const std::string column =
        message([&] { chosenSamples(parseSampleFilter("kind=x", "x"), m, kPaths, "--samples"); });
    EXPECT_NE(column.find("no column \"kind\""), std::string::npos) << column;
    EXPECT_NE(column.find("condition, type"), std::string::npos) << column;
    // A misspelt value would choose nothing (=) or everything (!=): refused, with the values.
    for (const char* typo : {"type=refrence", "type!=refrence"}) {
        const std::string value =
            message([&] { chosenSamples(parseSampleFilter(typo, "x"), m, kPaths, "--samples"); });
        EXPECT_NE(value.find("no sample has type \"refrence\" (theirs: sample, reference, spare)"),
                  std::string::npos)
            << value;
    }
}

}  // namespace
}  // namespace sepal
