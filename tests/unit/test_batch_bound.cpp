// Populations that lie in one batch: found by how many times as frequent they are there as in
// the other batches, not by their share of all cells.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/cluster/batch_bound.h"

namespace sepal {
namespace {

std::vector<PopulationCount> rows(
    const std::vector<std::tuple<std::string, std::string, uint64_t>>& cells) {
    std::vector<PopulationCount> out;
    for (const auto& [sample, population, n] : cells) out.push_back({sample, population, n, 0});
    return out;
}

TEST(BatchBound, APopulationOfOneBatchIsFoundAndPatientsDifferencesAreNot) {
    // b1: P1 and P3; b2: P2 (a third of the cells). "T dim" is b1's copy of b2's "T bright";
    // "NK" is twice as frequent in P2 as in the others, as patients differ.
    const auto counts = rows({{"P1", "T dim", 400},
                              {"P1", "T bright", 4},
                              {"P1", "NK", 100},
                              {"P1", "B", 496},
                              {"P1", "unassigned", 5000},
                              {"P3", "T dim", 380},
                              {"P3", "T bright", 6},
                              {"P3", "NK", 110},
                              {"P3", "B", 504},
                              {"P2", "T dim", 2},
                              {"P2", "T bright", 390},
                              {"P2", "NK", 210},
                              {"P2", "B", 398},
                              {"Ref", "B", 1000}});
    const std::map<std::string, std::string> batch{{"P1", "b1"}, {"P3", "b1"}, {"P2", "b2"}};
    const auto batchOf = [&](const std::string& s) {
        const auto it = batch.find(s);
        return it == batch.end() ? std::string() : it->second;  // Ref: no batch, left out
    };
    const auto bound = batchBoundPopulations(counts, batchOf);
    ASSERT_EQ(bound.size(), 2u);
    EXPECT_EQ(bound[0].population, "T dim");  // 195 times: the most bound first
    EXPECT_EQ(bound[0].batch, "b1");
    EXPECT_DOUBLE_EQ(bound[0].inBatch, 780.0 / 2000);
    EXPECT_DOUBLE_EQ(bound[0].elsewhere, 2.0 / 1000);
    EXPECT_EQ(bound[1].population, "T bright");
    EXPECT_EQ(bound[1].batch, "b2");
    EXPECT_NEAR(bound[1].fold(), (390.0 / 1000) / (10.0 / 2000), 1e-9);
    // One batch: nothing to tell apart.
    EXPECT_TRUE(batchBoundPopulations(counts, [](const std::string&) { return "b1"; }).empty());
    // Nowhere else: an infinite fold, still found.
    const auto alone =
        batchBoundPopulations(rows({{"P1", "X", 50}, {"P1", "B", 950}, {"P2", "B", 1000}}),
                              [](const std::string& s) { return s == "P1" ? "b1" : "b2"; });
    ASSERT_EQ(alone.size(), 1u);
    EXPECT_TRUE(std::isinf(alone[0].fold()));
}

TEST(BatchBound, ARarePopulationBelowAPercentOfItsBatchIsNotCalled) {
    const auto counts = rows({{"P1", "rare", 5}, {"P1", "B", 995}, {"P2", "B", 1000}});
    EXPECT_TRUE(batchBoundPopulations(counts, [](const std::string& s) {
                    return s == "P1" ? "b1" : "b2";
                }).empty());
}

}  // namespace
}  // namespace sepal
