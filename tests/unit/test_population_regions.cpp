// Populations drawn as layout regions: the rule a model carries to label cells as the app did.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "core/model/model_file.h"
#include "core/model/population_regions.h"

namespace sepal {
namespace {

// Three landmarks' labels (0, 1, none) and two populations; cells on a line at x = 0..5.
PopulationRegions twoPopulations() {
    return regionsFromLandmarks({0, 1, -1}, 2);
}
const std::vector<float> kLine = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0, NAN, 0};
const std::vector<float> kLeftHalf = {-0.5f, -1, 2.5f, -1, 2.5f, 1, -0.5f, 1};

TEST(PopulationRegions, LandmarksLabelFirstThenStrokesInOrder) {
    PopulationRegions r = twoPopulations();
    const std::vector<int32_t> nearest = {0, 1, 2, 0, 1, 0};  // labels of each cell's landmark
    EXPECT_EQ(labelCells(r, nearest, kLine.data()), (std::vector<int32_t>{0, 1, -1, 0, 1, 0}));
    // The left half into population 1; a later stroke over x <= 1.5 back into 0 wins there.
    r.strokes.push_back({1, {}, kLeftHalf});
    EXPECT_EQ(labelCells(r, nearest, kLine.data()), (std::vector<int32_t>{1, 1, 1, 0, 1, 0}));
    r.strokes.push_back({0, {}, {-0.5f, -1, 1.5f, -1, 1.5f, 1, -0.5f, 1}});
    EXPECT_EQ(labelCells(r, nearest, kLine.data()), (std::vector<int32_t>{0, 0, 1, 0, 1, 0}));
    // A cell with no position (NaN) is in no stroke.
    EXPECT_EQ(labelCells(r, nearest, kLine.data())[5], 0);
}

TEST(PopulationRegions, ASplitTakesOnlyTheCellsOfItsPopulation) {
    PopulationRegions r = twoPopulations();
    r.populationOfLabel.push_back(2);  // a third population, drawn
    r.strokes.push_back({2, {1}, kLeftHalf});
    const std::vector<int32_t> nearest = {0, 1, -1, 1, 1, 0};
    EXPECT_EQ(labelCells(r, nearest, kLine.data()), (std::vector<int32_t>{0, 2, -1, 1, 1, 0}));
}

TEST(PopulationRegions, MergesAndDeletionsChangeOnlyWhereLabelsEnd) {
    // Drawn, then split from population 1, then 1 deleted: the split's cells stay split, and the
    // cells it did not take (those of 1) join none, as the app's membership does.
    PopulationRegions r = twoPopulations();
    r.populationOfLabel.push_back(2);
    r.strokes.push_back({2, {1}, kLeftHalf});
    const std::vector<int32_t> nearest = {1, 1, 0, 1, 1, 0};
    r = withoutPopulation(r, 1);
    EXPECT_EQ(r.populationOfLabel, (std::vector<int32_t>{0, -1, 1}));
    EXPECT_EQ(labelCells(r, nearest, kLine.data()), (std::vector<int32_t>{1, 1, 0, -1, -1, 0}));
    EXPECT_EQ(populationOfLandmarks(r), (std::vector<int32_t>{0, -1, -1}));
}

TEST(PopulationRegions, TravelInModelFilesAndBadOnesAreNamed) {
    LandmarkModel m;
    m.dim = 2;
    m.high = {0, 0, 1, 1, 2, 2};
    m.low = {0, 0, 1, 1, 2, 2};
    m.locked = {0, 0, 0};
    PopulationRegions r = twoPopulations();
    r.strokes.push_back({1, {0}, kLeftHalf});
    const std::vector<ModelPopulation> pops = {{"T", {0}}, {"B", {1}}};
    const auto doc = modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, pops, {}, r);
    EXPECT_EQ(modelFromJson(doc, "memory").regions, r);
    EXPECT_TRUE(modelFromJson(modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, pops), "memory")
                    .regions.empty());
    const auto errorOf = [](const nlohmann::json& d) {
        try {
            modelFromJson(d, "m.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    auto bad = doc;
    bad["regions"]["landmarks"] = {0, 1};
    EXPECT_NE(errorOf(bad).find("the model has 3 landmarks"), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"]["labels"] = {0, 5};
    EXPECT_NE(errorOf(bad).find("population 5"), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"]["strokes"][0]["polygon"] = {0, 0, 1, 1};
    EXPECT_NE(errorOf(bad).find("stroke 0 needs a polygon"), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"]["strokes"][0]["label"] = 7;
    EXPECT_NE(errorOf(bad).find("stroke 0 paints label 7"), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"]["strokes"][0]["from"] = {"B"};
    EXPECT_NE(errorOf(bad).find("\"from\""), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"]["labels"] = {0, uint64_t(18446744073709551615ull)};
    EXPECT_NE(errorOf(bad).find("not an integer >= -1"), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"]["strokes"][0]["polygon"] = {0, 0, 1e300, 0, 0, 1};
    EXPECT_NE(errorOf(bad).find("not a finite number"), std::string::npos) << errorOf(bad);
    bad = doc;
    bad["regions"].erase("strokes");
    EXPECT_NE(errorOf(bad).find("m.json"), std::string::npos) << errorOf(bad);
    // Saving refuses a rule that names more populations than the model has.
    EXPECT_THROW(modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, {pops[0]}, {}, r), InputError);
}

}  // namespace
}  // namespace sepal
