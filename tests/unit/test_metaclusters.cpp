// Populations from landmarks: the agglomerative clustering, the adjusted Rand index, the
// metaclusters of a trained demo model against the generator's true populations, and names.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "core/cluster/agglomerate.h"
#include "core/cluster/dendrogram.h"
#include "core/cluster/heatmap.h"
#include "core/cluster/metaclusters.h"
#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/embedsom/embedsom.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"
#include "core/raster/text.h"

namespace sepal {
namespace {

TEST(Agglomerate, CutsTheObviousGroupsWithEitherLinkage) {
    // Points on a line: {0, 1}, {10, 11.5}, {30}.
    const float x[] = {10, 0, 30, 1, 11.5f};
    for (Linkage linkage : {Linkage::Ward, Linkage::Average}) {
        const auto dis = linkage == Linkage::Ward ? squaredDistances(x, 5, 1) : [&] {
            auto d = squaredDistances(x, 5, 1);
            for (double& v : d) v = std::sqrt(v);
            return d;
        }();
        EXPECT_EQ(agglomerate(dis, 5, linkage, 3), (std::vector<int32_t>{0, 1, 2, 1, 0}));
        EXPECT_EQ(agglomerate(dis, 5, linkage, 1), (std::vector<int32_t>{0, 0, 0, 0, 0}));
        EXPECT_EQ(agglomerate(dis, 5, linkage, 5), (std::vector<int32_t>{0, 1, 2, 3, 4}));
        // Two groups: 30 stays apart from the rest under both linkages.
        EXPECT_EQ(agglomerate(dis, 5, linkage, 2), (std::vector<int32_t>{0, 0, 1, 0, 0}));
    }
    EXPECT_THROW(agglomerate(squaredDistances(x, 5, 1), 5, Linkage::Ward, 0), InputError);
    EXPECT_THROW(agglomerate(squaredDistances(x, 5, 1), 5, Linkage::Ward, 6), InputError);
}

TEST(Agglomerate, AnOutlierOfLittleWeightJoinsAGroupUnderWardsLinkage) {
    // Three groups of five on a line (around 0, 10 and 20) and one item far out at 40. Unweighted,
    // merging the outlier costs more than merging two groups, so it stays a group of its own.
    // When each group item stands for 100 cells and the outlier for 1, it joins the group at 20.
    std::vector<float> x;
    for (float centre : {0.0f, 10.0f, 20.0f})
        for (float offset : {-0.4f, -0.2f, 0.0f, 0.2f, 0.4f}) x.push_back(centre + offset);
    x.push_back(40.0f);
    const size_t g = x.size();
    const auto dis = squaredDistances(x.data(), g, 1);
    const auto plain = agglomerate(dis, g, Linkage::Ward, 3);
    EXPECT_EQ(std::set<int32_t>(plain.begin(), plain.begin() + 15).size(), 2u);
    EXPECT_NE(plain[15], plain[14]);  // the outlier alone
    std::vector<double> cells(g, 100.0);
    cells.back() = 1.0;
    const auto weighted = agglomerate(dis, g, Linkage::Ward, 3, cells);
    EXPECT_EQ(weighted[15], weighted[14]);  // with the group at 20
    EXPECT_EQ(std::set<int32_t>(weighted.begin(), weighted.end()).size(), 3u);
    EXPECT_NE(weighted[0], weighted[5]);
    EXPECT_NE(weighted[5], weighted[10]);
    // The same weight everywhere changes nothing.
    for (Linkage linkage : {Linkage::Ward, Linkage::Average})
        EXPECT_EQ(agglomerate(dis, g, linkage, 3, std::vector<double>(g, 7.0)),
                  agglomerate(dis, g, linkage, 3));
    // Weights of another number, or not positive, are refused.
    EXPECT_THROW(agglomerate(dis, g, Linkage::Ward, 3, std::vector<double>(g - 1, 1.0)),
                 InputError);
    cells.front() = 0.0;
    EXPECT_THROW(agglomerate(dis, g, Linkage::Ward, 3, cells), InputError);
    cells.front() = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(agglomerate(dis, g, Linkage::Average, 3, cells), InputError);
}

TEST(Metaclusters, EachLandmarkWeighsTheCellsNearestToItAtLeastOne) {
    Matrix points(5, 2);
    const float values[] = {0, 0, 1, 1, 2, 2, 3, std::numeric_limits<float>::quiet_NaN(), 4, 4};
    std::copy(values, values + 10, points.values.begin());
    // Landmark 0 is nearest to three complete cells, 1 to one, 2 to none; the cell with a
    // missing value counts for no landmark.
    EXPECT_EQ(landmarkWeights(points, {0, 0, 1, 0, 0}, 3), (std::vector<double>{3, 1, 1}));
    EXPECT_THROW(landmarkWeights(points, {0, 0}, 3), InputError);
}

TEST(AdjustedRandIndex, OneForTheSamePartitionAndNearZeroForChance) {
    const std::vector<int32_t> a = {0, 0, 1, 1, 2, 2, 2};
    EXPECT_DOUBLE_EQ(adjustedRandIndex(a, {5, 5, 3, 3, 9, 9, 9}), 1.0);
    EXPECT_LT(adjustedRandIndex(a, {0, 1, 0, 1, 0, 1, 2}), 0.1);
    std::vector<int32_t> x(20000), y(20000);
    uint32_t s = 7;
    for (size_t i = 0; i < x.size(); ++i) {
        s = s * 1664525u + 1013904223u;
        x[i] = int32_t(s >> 28);
        s = s * 1664525u + 1013904223u;
        y[i] = int32_t(s >> 28);
    }
    EXPECT_NEAR(adjustedRandIndex(x, y), 0.0, 0.01);
    // Negative labels are left out.
    EXPECT_DOUBLE_EQ(adjustedRandIndex({0, 0, 1, -1}, {1, 1, 0, 0}), 1.0);
}

/// The demo's true population of every event (the generator's code channel).
std::vector<int32_t> truthOf(const io::Table& table) {
    const int c = table.findChannel("Population");
    if (c < 0) return {};
    std::vector<int32_t> truth(table.events());
    for (size_t i = 0; i < truth.size(); ++i) truth[i] = int32_t(table.values.at(i, size_t(c)));
    return truth;
}

TEST(Metaclusters, TheDemoModelsPopulationsAreTheGeneratorsOwn) {
    io::Table table = demo::makeDemoTable(30000, 2);
    const std::vector<int32_t> truth = truthOf(table);
    ASSERT_EQ(truth.size(), table.events());
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    const Matrix points = fitAndApply(pipeline, table);
    auto search = makeCpuNearestSearch();
    const LandmarkModel model = trainLandmarks(points, EmbedSettings{}, *search, {}, nullptr);
    const auto weights =
        landmarkWeights(points, nearestLandmarks(points, model, *search), model.count());
    for (auto method : {MetaclusterMethod::Consensus, MetaclusterMethod::Ward}) {
        MetaclusterSettings settings;
        settings.k = 15;
        settings.method = method;
        settings.weights = weights;
        const auto groups = metaclusterLandmarks(model, settings);
        ASSERT_EQ(groups.size(), model.count());
        EXPECT_EQ(std::set<int32_t>(groups.begin(), groups.end()).size(), 15u);
        const auto codes = groupsOfPoints(points, model, groups, *search);
        EXPECT_GE(adjustedRandIndex(codes, truth), 0.8)
            << (method == MetaclusterMethod::Ward ? "ward" : "consensus");
        // The same seed gives the same groups.
        EXPECT_EQ(metaclusterLandmarks(model, settings), groups);
    }
    MetaclusterSettings tooMany;
    tooMany.k = model.count() + 1;
    EXPECT_THROW(metaclusterLandmarks(model, tooMany), InputError);
    EXPECT_THROW(metaclusterMethod("kmeans"), InputError);
    // Too many landmarks to group: refused before any g x g matrix is made.
    LandmarkModel huge;
    huge.resize(kMostAgglomerated + 1, 1);
    MetaclusterSettings few;
    few.k = 5;
    EXPECT_THROW(metaclusterLandmarks(huge, few), InputError);
}

TEST(Metaclusters, TheProjectionsNearestLandmarksLabelAsASearchDoes) {
    // Duplicate landmarks (ties go to the lower index), a row with NaN, points on landmarks.
    io::Table table = demo::makeDemoTable(5000, 3);
    TransformPipeline pipeline = choosePipeline(table, PrepareOptions{});
    Matrix points = fitAndApply(pipeline, table);
    auto search = makeCpuNearestSearch();
    LandmarkModel model = trainLandmarks(points, EmbedSettings{}, *search, {}, nullptr);
    std::copy(model.highRow(3), model.highRow(3) + model.dim, model.highRow(7));
    model.touch();
    std::copy(model.highRow(3), model.highRow(3) + model.dim, points.row(10));
    points.row(11)[0] = std::numeric_limits<float>::quiet_NaN();
    std::vector<int32_t> groups(model.count());
    for (size_t l = 0; l < groups.size(); ++l) groups[l] = int32_t(l % 5);
    groups[7] = 4;  // the duplicate of landmark 3 (group 3) in another group
    auto projector = makeCpuProjector();
    Matrix xy(points.rows, 2), plain(points.rows, 2);
    std::vector<uint32_t> nearest(points.rows, 0);
    bool found = false;
    projector->projectFindingNearest(points.data(), points.rows, points.cols, model, EmbedParams{},
                                     xy.data(), nearest.data(), found);
    ASSERT_TRUE(found);
    projector->project(points.data(), points.rows, points.cols, model, EmbedParams{}, plain.data());
    EXPECT_EQ(std::vector<float>(xy.data(), xy.data() + 2 * xy.rows),
              std::vector<float>(plain.data(), plain.data() + 2 * plain.rows));
    const auto searched = groupsOfPoints(points, model, groups, *search);
    EXPECT_EQ(groupsOfNearest(points, nearest, groups), searched);
    EXPECT_EQ(nearest[10], 3u);
    EXPECT_EQ(searched[10], 3);
    EXPECT_EQ(searched[11], -1);
    EXPECT_THROW(groupsOfNearest(points, std::vector<uint32_t>(3), groups), InputError);
}

}  // namespace
}  // namespace sepal

namespace sepal {
namespace {

TEST(Heatmap, MediansScaledPerMarkerBetweenItsPercentilesWithCounts) {
    // Marker A: group 0 at 10, group 1 at 0; marker B: the same everywhere but one outlier.
    Matrix values(201, 2);
    std::vector<int32_t> codes(201);
    for (size_t i = 0; i < 200; ++i) {
        codes[i] = int32_t(i % 2);
        values.at(i, 0) = i % 2 ? 0.0f : 10.0f;
        values.at(i, 1) = 1.0f + 0.001f * float(i);
    }
    codes[200] = -1;  // counts for the percentiles only
    values.at(200, 0) = 5.0f;
    values.at(200, 1) = 1000.0f;
    const Heatmap h = heatmapOf(values, codes, {"high A", "low A"}, {"A", "B"});
    EXPECT_EQ(h.cells, (std::vector<size_t>{100, 100}));
    EXPECT_FLOAT_EQ(h.medians[0], 10.0f);
    EXPECT_FLOAT_EQ(h.scaled[0], 1.0f);
    EXPECT_FLOAT_EQ(h.scaled[2], 0.0f);
    // B's outlier lies above the 99th percentile, so the ordinary values keep their spread.
    EXPECT_GT(h.scaled[1], 0.3f);
    EXPECT_LT(h.scaled[1], 0.7f);
    const raster::Image picture = renderHeatmap(h);
    EXPECT_GT(picture.width, 200);
    EXPECT_GT(picture.height, 100);
    EXPECT_THROW(heatmapOf(values, {0, 1}, {"a"}, {"A", "B"}), InputError);
}

TEST(Metaclusters, OnlyTheFlaggedColumnsGroupTheLandmarks) {
    // Four landmarks: two lineages apart in column 0, and a state marker (column 1) that splits
    // them the other way, more strongly.
    LandmarkModel model;
    model.resize(4, 2);
    const float rows[4][2] = {{0, 0}, {0, 10}, {3, 0}, {3, 10}};
    for (size_t j = 0; j < 4; ++j) std::copy(rows[j], rows[j] + 2, model.highRow(j));
    MetaclusterSettings settings;
    settings.k = 2;
    const auto everything = metaclusterLandmarks(model, settings);
    EXPECT_EQ(everything[0], everything[2]);  // grouped by the state marker
    settings.columns = groupingColumns({MarkerClass::Type, MarkerClass::State});
    EXPECT_TRUE(settings.columns.empty()) << "one type marker groups by every column";
    settings.columns = {1, 0};
    const auto lineage = metaclusterLandmarks(model, settings);
    EXPECT_EQ(lineage[0], lineage[1]);
    EXPECT_EQ(lineage[2], lineage[3]);
    EXPECT_NE(lineage[0], lineage[2]);
    settings.columns = {1};
    EXPECT_THROW(metaclusterLandmarks(model, settings), InputError);
    EXPECT_EQ(groupingColumns({MarkerClass::Type, MarkerClass::State, MarkerClass::Type}),
              (std::vector<uint8_t>{1, 0, 1}));
}

TEST(Dendrogram, AverageLinkageKeepsNeighboursTogether) {
    // Five items on a line: 0, 10, 1, 11, 0.5 -> two groups {0, 2, 4} and {1, 3}.
    const std::vector<float> v = {0, 10, 1, 11, 0.5f};
    const Dendrogram tree = clusterItems(v, 5, 1);
    ASSERT_EQ(tree.merges.size(), 4u);
    for (size_t m = 1; m < tree.merges.size(); ++m)
        EXPECT_GE(tree.merges[m].height, tree.merges[m - 1].height);
    ASSERT_EQ(tree.order.size(), 5u);
    // The order puts each group together.
    std::vector<int> side;
    for (size_t i : tree.order) side.push_back(v[i] > 5);
    int changes = 0;
    for (size_t i = 1; i < side.size(); ++i) changes += side[i] != side[i - 1];
    EXPECT_EQ(changes, 1);
    // The last merge joins the groups at their average distance (mean of the 6 pairs).
    EXPECT_NEAR(tree.merges.back().height, (10 + 11 + 9 + 10 + 9.5 + 10.5) / 6.0, 1e-9);
    EXPECT_TRUE(clusterItems({}, 0, 3).order.empty());
    EXPECT_EQ(clusterItems({1, 2}, 1, 2).order, (std::vector<size_t>{0}));
}

TEST(Heatmap, TheTypeAndStateBlocksAndTheRealFontMakeThePicture) {
    Matrix values(40, 3);
    std::vector<int32_t> codes(40);
    for (size_t i = 0; i < 40; ++i) {
        codes[i] = int32_t(i % 2);
        values.at(i, 0) = i % 2 ? 5.0f : 0.0f;
        values.at(i, 1) = float(i % 5);
        values.at(i, 2) = i % 2 ? 0.0f : 5.0f;
    }
    Heatmap h = heatmapOf(values, codes, {"A cells", "B cells"}, {"CD3", "pSTAT5", "CD19"});
    const raster::Image one = renderHeatmap(h);
    h.classes = {MarkerClass::Type, MarkerClass::State, MarkerClass::Type};
    const raster::Image two = renderHeatmap(h);
    // The state block stands apart: the picture is wider by the gap between blocks.
    EXPECT_GT(two.width, one.width);
    const raster::Image light = renderHeatmap(h, color::Colormap::Viridis, true);
    EXPECT_EQ(light.at(0, 0), (color::Rgba8{255, 255, 255, 255}));
    EXPECT_TRUE(raster::textHasFont()) << "DejaVu Sans (fonts-dejavu-core) is not installed";
}

}  // namespace
}  // namespace sepal
