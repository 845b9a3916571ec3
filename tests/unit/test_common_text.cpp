#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sepal
