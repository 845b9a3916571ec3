#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/common/text.h"

namespace sepal {
namespace {

// Shortened names never begin or end inside a word: "Gates_PTLG021" and "Gates_PTLG028" share
// "Gates_PTLG0", of which only "Gates_" is a whole word.
TEST(CommonText, SharedPartsEndAtWordBoundaries) {
    const std::vector<std::string> samples = {"Gates_PTLG021_Unstim_Control_2",
                                              "Gates_PTLG028_Unstim_Control_1",
                                              "Gates_PTLG034_Unstim_Control_1"};
    EXPECT_EQ(sharedWordStart(samples), 6u);
    EXPECT_EQ(sharedWordEnd(samples), 0u);  // the last characters differ
    const std::vector<std::string> runs = {"day 1.fcs", "day 12.fcs", "day 3.fcs"};
    EXPECT_EQ(sharedWordStart(runs), 4u);  // "day "
    EXPECT_EQ(sharedWordEnd(runs), 4u);    // ".fcs"
    EXPECT_EQ(sharedWordStart({"CD4 T"}), 0u) << "one name shares nothing";
    EXPECT_EQ(sharedWordStart({"CD4", "CD8"}), 0u) << "no word boundary inside CD";
    EXPECT_EQ(sharedWordStart({"same_name", "same_name"}), 5u);
    EXPECT_EQ(commaJoined({"CD3", "CD4"}), "CD3, CD4");
}

// The Counts window heads its columns by what tells the samples apart: the CytoNorm files'
// shared middle ("_Unstim_Control_") took most of each column, and cut to the window the "_1"
// and "_2" that part two files of one patient were lost.
TEST(CommonText, DistinguishingNamesKeepTheWordsThatDiffer) {
    EXPECT_EQ(
        distinguishingNames({"Gates_PTLG021_Unstim_Control_2", "Gates_PTLG028_Unstim_Control_1",
                             "Gates_PTLG034_Unstim_Control_1", "Gates_PTLG034_Unstim_Control_2"}),
        (std::vector<std::string>{"PTLG021_2", "PTLG028_1", "PTLG034_1", "PTLG034_2"}));
    // Other separators stay as they were written.
    EXPECT_EQ(distinguishingNames({"p1 day-3.fcs", "p2 day-7.fcs"}),
              (std::vector<std::string>{"p1-3", "p2-7"}));
    // Names of other word counts lose only their shared ends.
    EXPECT_EQ(distinguishingNames({"day 1.fcs", "day 12 late.fcs"}),
              (std::vector<std::string>{"1", "12 late"}));
    // Nothing to part: each name whole.
    EXPECT_EQ(distinguishingNames({"a_b", "a_b"}), (std::vector<std::string>{"a_b", "a_b"}));
    EXPECT_EQ(distinguishingNames({"only"}), (std::vector<std::string>{"only"}));
}

// Names cut to one width that would read the same lose the words they share instead: the
// Counts and Heatmap windows showed "Neutrop...bright" for two neutrophil populations.
TEST(CommonText, NamesThatWouldReadTheSameAreToldApart) {
    const auto chars = [](const std::string& t) { return double(t.size()); };
    const std::vector<std::string> names = {"Neutrophils CD19dim CD45RAbright",
                                            "Neutrophils CD19bright", "CD4 T",
                                            "Doublets (CD3+ CD14+)", "Doublets (TCRgd+ CD14+)"};
    const std::vector<std::string> plain = {elideMiddle(names[0], 16, chars, "..."),
                                            elideMiddle(names[1], 16, chars, "...")};
    ASSERT_EQ(plain[0], plain[1]) << "the case needs two names that read alike";
    const auto out = elideApart(names, 16, chars, "...");
    EXPECT_EQ(out[2], "CD4 T");
    EXPECT_EQ(out[1], "CD19bright");
    EXPECT_EQ(out[3], "(CD3+ CD14+)");
    EXPECT_EQ(out[4], "(TCRgd+ CD14+)");
    EXPECT_NE(out[0], out[1]);
    EXPECT_LE(out[0].size(), 16u) << out[0];
    EXPECT_EQ(out[0].rfind("...", 0), 0u) << out[0];
    std::set<std::string> distinct(out.begin(), out.end());
    EXPECT_EQ(distinct.size(), names.size());
}

}  // namespace
}  // namespace sepal
