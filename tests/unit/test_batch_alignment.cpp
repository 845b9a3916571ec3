// Batch alignment: the quantile map's shape, and batches carried onto their goal, compensated
// channels through the spillover, the alignment's JSON and the metadata that assigns batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/read_any.h"
#include "core/pipeline/aligned_files.h"
#include "core/pipeline/batch_alignment.h"
#include "core/transform/quantile_map.h"
#include "fresh_dir.h"

namespace sepal {

namespace {

// A table of channels CD3 and CD19 (markers, arcsinh cofactor 5) and Time; CD3's values of cell
// i are sinh(a * z_i + b) * 5 for z spread over -2..3, CD19's the same with z mirrored.
io::Table batchTable(size_t n, double a, double b, const std::string& source) {
    io::Table t;
    t.source = source;
    t.channels = {{"Nd142Di", "CD3", 0, 32}, {"Nd143Di", "CD19", 0, 32}, {"Time", "", 0, 32}};
    t.values = Matrix(n, 3);
    for (size_t i = 0; i < n; ++i) {
        // A scrambled order, so that rank preservation is not sortedness.
        const double u = double((i * 7919) % n) / double(n - 1);
        const double z = -2 + 5 * u * u;
        t.values.at(i, 0) = float(std::sinh(a * z + b) * 5);
        t.values.at(i, 1) = float(std::sinh(a * (1 - z) + b) * 5);
        t.values.at(i, 2) = float(i);
    }
    return t;
}

TransformPipeline arcsinhScale(const std::vector<std::string>& channels) {
    TransformPipeline scale;
    for (const auto& c : channels) {
        ColumnStep step{c};
        step.transform.kind = ColumnTransform::Kind::Arcsinh;
        step.transform.cofactor = 5;
        scale.steps.push_back(step);
    }
    return scale;
}

std::vector<double> sortedScaled(const io::Table& t, size_t column) {
    std::vector<double> out;
    for (size_t i = 0; i < t.events(); ++i) out.push_back(std::asinh(t.values.at(i, column) / 5.0));
    std::sort(out.begin(), out.end());
    return out;
}

// Two cell types told apart by CD3 (arcsinh levels 1 and 4), alike on pSTAT5 (levels spread
// over 2.5..3.5) in batch x; in batch y pSTAT5 is `shift` brighter in the CD3+ cells and as much
// dimmer in the others: a batch effect that differs by cell type.
io::Table cellTypeTable(size_t n, double shift, const std::string& source) {
    io::Table t;
    t.source = source;
    t.channels = {{"Pr141Di", "CD3", 0, 32}, {"Er166Di", "pSTAT5", 0, 32}};
    t.values = Matrix(n, 2);
    for (size_t i = 0; i < n; ++i) {
        const bool tCell = i % 2 == 0;
        const double u = double((i * 7919) % n) / double(n - 1);
        t.values.at(i, 0) = float(std::sinh((tCell ? 4.0 : 1.0) + 0.3 * (u - 0.5)) * 5);
        t.values.at(i, 1) = float(std::sinh(2.5 + u + (tCell ? shift : -shift)) * 5);
    }
    return t;
}

// The median pSTAT5 level of the CD3+ (or CD3-) cells of `t`.
double medianLevel(const io::Table& t, bool tCells) {
    std::vector<double> v;
    for (size_t i = 0; i < t.events(); ++i)
        if ((i % 2 == 0) == tCells) v.push_back(std::asinh(t.values.at(i, 1) / 5.0));
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace

TEST(QuantileMap, QuantilesAreRsTypeSeven) {
    // R: quantile(c(1, 2, 3, 4, 10), c(0, 0.25, 0.5, 0.9, 1)) is 1, 2, 3, 7.6, 10.
    const auto q = quantilesOfSorted({1, 2, 3, 4, 10}, {0, 0.25, 0.5, 0.9, 1});
    ASSERT_EQ(q.size(), 5u);
    EXPECT_DOUBLE_EQ(q[0], 1);
    EXPECT_DOUBLE_EQ(q[1], 2);
    EXPECT_DOUBLE_EQ(q[2], 3);
    EXPECT_NEAR(q[3], 7.6, 1e-12);
    EXPECT_DOUBLE_EQ(q[4], 10);
    EXPECT_TRUE(quantilesOfSorted({}, {0.5}).empty());
}

TEST(QuantileMap, PassesThroughItsKnotsRisesBetweenAndShiftsBeyond) {
    const std::vector<double> from{0, 1, 2, 3, 10}, to{0, 2, 2.5, 5, 6};
    const QuantileMap map(from, to);
    for (size_t i = 0; i < from.size(); ++i) EXPECT_NEAR(map(from[i]), to[i], 1e-12) << i;
    double last = map(-1);
    for (double x = -1; x <= 12; x += 0.01) {
        const double y = map(x);
        EXPECT_GE(y, last - 1e-12) << "at " << x;
        last = y;
    }
    // No overshoot: between two knots the map stays between their goals.
    for (double x = 1; x <= 2; x += 0.01) {
        EXPECT_GE(map(x), 2 - 1e-12);
        EXPECT_LE(map(x), 2.5 + 1e-12);
    }
    EXPECT_NEAR(map(-3), -3, 1e-12);  // slope 1 below the first knot
    EXPECT_NEAR(map(14), 10, 1e-12);  // and above the last
    EXPECT_TRUE(std::isnan(map(std::nan(""))));
}

TEST(QuantileMap, TiedKnotsTakeTheMeanOfTheirGoalsAndFlatStretchesStayFlat) {
    const QuantileMap tied({0, 0, 0, 1, 2}, {0, 0.3, 0.6, 1, 2});
    EXPECT_NEAR(tied(0), 0.3, 1e-12);
    const QuantileMap flat({0, 1, 2, 3}, {0, 1, 1, 2});
    for (double x = 1; x <= 2; x += 0.05) EXPECT_NEAR(flat(x), 1, 1e-12) << x;
    const QuantileMap single({4, 4}, {6, 6});
    EXPECT_NEAR(single(10), 12, 1e-12);
    EXPECT_EQ(QuantileMap()(3.5), 3.5);
}

TEST(QuantileMap, EarthMoversDistanceOfAShiftIsTheShift) {
    std::vector<double> a, b;
    for (int i = 0; i < 500; ++i) {
        a.push_back(i * 0.01);
        b.push_back(i * 0.01 + 0.7);
    }
    EXPECT_NEAR(earthMoversDistance(a, b), 0.7, 1e-9);
    EXPECT_NEAR(earthMoversDistance(a, a), 0, 1e-12);
}

TEST(BatchAlignment, CarriesEachBatchOntoTheGoalAndKeepsItsCellsInOrder) {
    const io::Table a = batchTable(4000, 1.0, 0.0, "a.fcs");
    const io::Table b = batchTable(3000, 1.3, 0.5, "b.fcs");  // brighter and wider
    const BatchAlignment alignment =
        learnBatchAlignment({&a, &b}, {"day1", "day2"}, arcsinhScale({"Nd142Di", "Nd143Di"}));
    ASSERT_EQ(alignment.batches, (std::vector<std::string>{"day1", "day2"}));
    ASSERT_EQ(alignment.levels.size(), 101u);
    const io::Table alignedA = alignTable(a, alignment, "day1");
    const io::Table alignedB = alignTable(b, alignment, "day2");
    for (size_t c = 0; c < 2; ++c) {
        const double before = earthMoversDistance(sortedScaled(a, c), sortedScaled(b, c));
        const double after =
            earthMoversDistance(sortedScaled(alignedA, c), sortedScaled(alignedB, c));
        EXPECT_GT(before, 0.3) << c;
        EXPECT_LT(after, 0.02 * before) << c;
        // Each aligned batch's quantiles are the goal's.
        for (const io::Table* t : {&alignedA, &alignedB}) {
            const auto q = quantilesOfSorted(sortedScaled(*t, c), alignment.levels);
            for (size_t l = 0; l < q.size(); ++l)
                EXPECT_NEAR(q[l], alignment.goal[c][l], 1e-4) << c << " level " << l;
        }
    }
    // Within a batch no two cells change places, and Time is untouched, bit for bit.
    for (size_t i = 1; i < b.events(); ++i)
        for (size_t c = 0; c < 2; ++c)
            EXPECT_EQ(b.values.at(i, c) < b.values.at(i - 1, c),
                      alignedB.values.at(i, c) < alignedB.values.at(i - 1, c))
                << i;
    for (size_t i = 0; i < b.events(); ++i) EXPECT_EQ(alignedB.values.at(i, 2), b.values.at(i, 2));
    EXPECT_EQ(*alignedB.keyword("SEPAL_BATCH"), "day2");
    // The gaps say the same.
    const auto gaps = batchGaps({&a, &b}, {&alignedA, &alignedB}, {"day1", "day2"}, alignment);
    ASSERT_EQ(gaps.size(), 2u);
    EXPECT_EQ(gaps[0].channel, "CD3");
    for (const auto& g : gaps) EXPECT_LT(g.after, 0.02 * g.before) << g.channel;
}

TEST(BatchAlignment, CompensatedChannelsComeBackThroughTheSpillover) {
    io::Table a = batchTable(2000, 1.0, 0.0, "a.fcs"), b = batchTable(2000, 1.2, 0.4, "b.fcs");
    io::Spillover spill;
    spill.channels = {"Nd142Di", "Nd143Di"};
    spill.matrix = Matrix(2, 2);
    spill.matrix.values = {1.0f, 0.15f, 0.05f, 1.0f};
    // The files hold what the detectors saw: the signals through the spillover.
    for (io::Table* t : {&a, &b}) {
        for (size_t i = 0; i < t->events(); ++i) {
            const double x = t->values.at(i, 0), y = t->values.at(i, 1);
            t->values.at(i, 0) = float(x * 1.0 + y * 0.05);
            t->values.at(i, 1) = float(x * 0.15 + y * 1.0);
        }
        t->spillover = spill;
    }
    TransformPipeline scale = arcsinhScale({"Nd142Di", "Nd143Di"});
    scale.compensation.source = CompensationStep::Source::File;
    const BatchAlignment alignment = learnBatchAlignment({&a, &b}, {"1", "2"}, scale);
    const io::Table aligned = alignTable(b, alignment, "2");
    ASSERT_TRUE(aligned.spillover.has_value());
    // The aligned file, compensated by its own matrix and transformed, holds the mapped values.
    const Matrix before = scale.apply(b), after = scale.apply(aligned);
    for (size_t c = 0; c < 2; ++c) {
        const QuantileMap map(alignment.quantiles[1][c], alignment.goal[c]);
        for (size_t i = 0; i < b.events(); i += 7)
            EXPECT_NEAR(after.at(i, c), map(before.at(i, c)), 2e-4) << c << " cell " << i;
    }
    for (size_t i = 0; i < b.events(); ++i) EXPECT_EQ(aligned.values.at(i, 2), b.values.at(i, 2));
}

TEST(BatchAlignment, ItsJsonAlignsTheSameAndBadAlignmentsAreRefused) {
    const io::Table a = batchTable(1000, 1.0, 0.0, "a.fcs"),
                    b = batchTable(800, 0.8, -0.3, "b.csv");
    const BatchAlignment alignment =
        learnBatchAlignment({&a, &b}, {"x", "y"}, arcsinhScale({"Nd142Di", "CD19"}), 51);
    const std::filesystem::path dir = test::freshDir("batch_alignment_json");
    const std::string path = (dir / "alignment.json").string();
    writeBatchAlignment(path, alignment);
    const BatchAlignment read = readBatchAlignment(path);
    EXPECT_EQ(read.levels, alignment.levels);
    EXPECT_EQ(read.goal, alignment.goal);
    EXPECT_EQ(alignTable(b, read, "y").values.values, alignTable(b, alignment, "y").values.values);

    EXPECT_THROW(alignTable(b, alignment, "z"), InputError);  // a batch it has not learnt
    EXPECT_THROW(learnBatchAlignment({&a, &b}, {"x", "x"}, arcsinhScale({"CD3"})), InputError);
    io::Table lacking = a;
    lacking.channels[1] = {"Other", "", 0, 32};
    try {
        alignTable(lacking, alignment, "x");
        ADD_FAILURE() << "a table without CD19 was aligned";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("CD19"), std::string::npos) << e.what();
    }
    // A file whose channel carries another marker than the anchors' is no file of theirs.
    io::Table relabelled = b;
    relabelled.channels[0].marker = "CD8";
    try {
        alignTable(relabelled, alignment, "y");
        ADD_FAILURE() << "a file of another panel was aligned";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("CD3"), std::string::npos) << what;
        EXPECT_NE(what.find("CD8"), std::string::npos) << what;
    }
    EXPECT_EQ(read.markers, (std::vector<std::string>{"CD3", "CD19"}));
    nlohmann::json broken = alignment.toJson();
    broken["goal"][0] = {1, 2};
    EXPECT_THROW(BatchAlignment::fromJson(broken, "broken.json"), InputError);
    broken = alignment.toJson();
    broken["batches"].erase(1);
    EXPECT_THROW(BatchAlignment::fromJson(broken, "broken.json"), InputError);
    EXPECT_THROW(BatchAlignment::fromJson(nlohmann::json::object(), "x.json"), InputError);
}

TEST(BatchAlignment, ClustersRemoveABatchEffectThatDiffersByCellType) {
    const io::Table x = cellTypeTable(4000, 0.0, "x.fcs"), y = cellTypeTable(4000, 0.4, "y.fcs");
    const TransformPipeline scale = arcsinhScale({"Pr141Di", "Er166Di"});
    const BatchAlignment byMarker = learnBatchAlignment({&x, &y}, {"x", "y"}, scale, 101);
    const BatchAlignment byCluster = learnBatchAlignment({&x, &y}, {"x", "y"}, scale, 101, 2);
    // Clustered on the type marker alone; both clusters have maps of their own.
    EXPECT_EQ(byCluster.clusterSteps, std::vector<size_t>{0});
    ASSERT_EQ(byCluster.clusters.size(), 2u);
    EXPECT_TRUE(byCluster.clusters[0].mapped() && byCluster.clusters[1].mapped());
    const io::Table one = alignTable(y, byMarker, "y"), each = alignTable(y, byCluster, "y");
    for (const bool tCells : {true, false}) {
        const double goal = (medianLevel(x, tCells) + medianLevel(y, tCells)) / 2;
        // One map for pSTAT5 cannot move the two cell types apart in opposite directions...
        EXPECT_GT(std::abs(medianLevel(one, tCells) - goal), 0.1) << tCells;
        // ...each cluster's map does.
        EXPECT_NEAR(medianLevel(each, tCells), goal, 0.03) << tCells;
    }
    // The clusters survive the JSON, and align the same.
    const BatchAlignment read = BatchAlignment::fromJson(byCluster.toJson(), "clusters.json");
    EXPECT_EQ(read.clusterSteps, byCluster.clusterSteps);
    EXPECT_EQ(alignTable(y, read, "y").values.values, each.values.values);
    nlohmann::json broken = byCluster.toJson();
    broken["clusters"][1]["centre"] = {1, 2};
    EXPECT_THROW(BatchAlignment::fromJson(broken, "broken.json"), InputError);
    broken = byCluster.toJson();
    broken["cluster_channels"] = {"Nd999Di"};
    EXPECT_THROW(BatchAlignment::fromJson(broken, "broken.json"), InputError);
    // More clusters than the anchors' cells can give is refused.
    EXPECT_THROW(learnBatchAlignment({&x, &y}, {"x", "y"}, scale, 101, 5000), InputError);
}

TEST(AlignedFiles, BatchesAndAnchorsComeFromTheMetadata) {
    SampleMetadata metadata;
    metadata.source = "samples.csv";
    metadata.columns = {"batch", "type"};
    metadata.files = {"a.fcs", "b.fcs", "c.fcs", "d.fcs"};
    metadata.values = {{"1", "control"}, {"1", "patient"}, {"2", "control"}, {"2", "patient"}};
    const std::vector<std::string> paths{"data/a.fcs", "data/b.fcs", "data/c.fcs", "data/d.fcs"};
    const BatchAssignment all = assignBatches(metadata, paths, "batch", "");
    EXPECT_EQ(all.batchOf, (std::vector<std::string>{"1", "1", "2", "2"}));
    EXPECT_EQ(all.anchor, (std::vector<bool>{true, true, true, true}));
    const BatchAssignment controls = assignBatches(metadata, paths, "batch", "type=control");
    EXPECT_EQ(controls.anchor, (std::vector<bool>{true, false, true, false}));
    EXPECT_THROW(assignBatches(metadata, paths, "day", ""), InputError);
    EXPECT_THROW(assignBatches(metadata, paths, "batch", "control"), InputError);
    EXPECT_THROW(assignBatches(metadata, {"data/a.fcs", "data/e.fcs"}, "batch", ""), InputError);
    metadata.values[2][1] = "patient";  // batch 2 without a control
    EXPECT_THROW(assignBatches(metadata, paths, "batch", "type=control"), InputError);
    EXPECT_NO_THROW(assignBatches(metadata, paths, "batch", "type=control", false));
    // Controls alike in every batch take nothing apart; every sample as anchors, where each
    // batch holds one condition, takes the conditions for the batches.
    metadata.values[2][1] = "control";
    EXPECT_TRUE(confoundedColumns(metadata, paths, controls, "batch").empty());
    metadata.columns.push_back("condition");
    for (size_t i = 0; i < 4; ++i) metadata.values[i].push_back(i < 2 ? "healthy" : "sick");
    EXPECT_TRUE(confoundedColumns(metadata, paths, controls, "batch") ==
                std::vector<std::string>{"condition"});
    EXPECT_TRUE(confoundedColumns(metadata, paths, all, "batch") ==
                std::vector<std::string>{"condition"});
    metadata.values[1][2] = "sick";  // batch 1 holds both conditions
    EXPECT_TRUE(confoundedColumns(metadata, paths, all, "batch").empty());
    EXPECT_NE(confoundingWarning({"condition"}).find("condition"), std::string::npos);
    EXPECT_EQ(confoundingWarning({}), "");
    EXPECT_EQ(alignedPaths({"x/a.fcs", "y/a.fcs", "z/t.tsv"}, "out"),
              (std::vector<std::string>{"out/a.fcs", "out/a_2.fcs", "out/t.csv"}));
}

TEST(AlignedFiles, TheGatesPopulationTeachesAndEveryCellIsAligned) {
    // Two batches whose files also hold beads, bright on every marker, in other shares: learnt
    // on the cells inside a gate that leaves the beads out, the alignment is the one learnt
    // from the files without them.
    const auto withBeads = [](io::Table t, size_t every) {
        for (size_t i = 0; i < t.events(); i += every) {
            t.values.at(i, 0) = 5000;
            t.values.at(i, 1) = 5000;
        }
        return t;
    };
    const std::vector<io::Table> tables{withBeads(batchTable(3000, 1.0, 0.0, "a.fcs"), 5),
                                        withBeads(batchTable(3000, 1.2, 0.4, "b.fcs"), 11)};
    GateSelection gates;
    GateDimension cd3;
    cd3.channel = "Nd142Di";
    cd3.max = 4000.0;
    gates.tree.gates.push_back({GateNode::Kind::Rectangle, "cells", "Cells", "", {cd3}});
    gates.population = "cells";
    AlignRequest request;
    request.assignment = {{"1", "2"}, {true, true}};
    request.scale = arcsinhScale({"Nd142Di", "Nd143Di"});
    request.folder = (test::freshDir("aligned_gated") / "out").string();
    request.gates = gates;
    const AlignedSamples aligned = alignSamples(tables, {"a.fcs", "b.fcs"}, request);
    std::vector<io::Table> clean;
    for (const auto& t : tables) clean.push_back(io::keepRows(t, gates.inside(t)));
    ASSERT_LT(clean[0].events(), tables[0].events());
    const BatchAlignment expected =
        learnBatchAlignment({&clean[0], &clean[1]}, {"1", "2"}, request.scale);
    EXPECT_EQ(aligned.alignment.goal, expected.goal);
    EXPECT_EQ(aligned.alignment.quantiles, expected.quantiles);
    EXPECT_NE(aligned.summary().find("learnt on the cells in Cells"), std::string::npos)
        << aligned.summary();
    // Every cell is written, beads too.
    EXPECT_EQ(io::readTable(aligned.paths[1]).events(), tables[1].events());
    // Without the gates the beads teach too, and the goal differs.
    request.gates = {};
    EXPECT_NE(alignSamples(tables, {"a.fcs", "b.fcs"}, request).alignment.goal, expected.goal);
    // A population that holds none of a batch's cells teaches nothing: refused.
    gates.tree.gates[0].dimensions[0].max = -1e9;
    request.gates = gates;
    EXPECT_THROW(alignSamples(tables, {"a.fcs", "b.fcs"}, request), InputError);
}

}  // namespace sepal
