// The gate tree's semantics as Gating-ML 2.0 states them: rectangle bounds (min in, max out,
// either open), even-odd polygons, inclusive ellipsoids, quadrants, booleans, parents, NaN
// events outside; paths and lookups; the checks that refuse broken trees; the JSON round trip;
// and earlier flat gates read as a chain with the same cells.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/gate/gate.h"
#include "core/gate/gate_counts_table.h"
#include "core/gate/gate_membership.h"
#include "core/gate/gate_tree_json.h"
#include "core/gate/gating_ml.h"

namespace sepal {
namespace {

// A table of two channels x and y with the given events.
io::Table table(const std::vector<std::pair<float, float>>& xy) {
    io::Table t;
    t.channels = {{"x", "", 0, 32}, {"y", "", 0, 32}};
    t.values = Matrix(xy.size(), 2);
    for (size_t i = 0; i < xy.size(); ++i) {
        t.values.at(i, 0) = xy[i].first;
        t.values.at(i, 1) = xy[i].second;
    }
    return t;
}

GateDimension dim(const std::string& channel, std::optional<double> min = {},
                  std::optional<double> max = {}) {
    GateDimension d;
    d.channel = channel;
    d.min = min;
    d.max = max;
    return d;
}

std::vector<uint8_t> inside(const GateTree& tree, const io::Table& t, const std::string& id) {
    return evaluateGates(tree, t).of(id);
}

TEST(GateTree, RectangleMinIsInsideMaxOutsideAndNanOutside) {
    GateTree tree;
    tree.gates.push_back({GateNode::Kind::Rectangle, "r", "", "", {dim("x", 1.0, 2.0)}});
    const io::Table t = table({{1, 0}, {2, 0}, {1.5f, 0}, {0.999f, 0}, {NAN, 0}});
    EXPECT_EQ(inside(tree, t, "r"), (std::vector<uint8_t>{1, 0, 1, 0, 0}));
    tree.gates[0].dimensions[0].max.reset();  // open above
    EXPECT_EQ(inside(tree, t, "r"), (std::vector<uint8_t>{1, 1, 1, 0, 0}));
}

// A gate on the file's matrix over FlowJo's export of compensated values ("Comp-x", no x) reads
// them as they are: they are the compensated values; uncompensated, x is missing and named.
TEST(GateTree, TheFilesCompensationReadsFlowJosCompensatedColumns) {
    GateTree tree;
    GateDimension x = dim("x", 1.0);
    x.compensation.kind = CompensationRef::Kind::File;
    tree.gates.push_back({GateNode::Kind::Rectangle, "r", "", "", {x}});
    io::Table t = table({{0.5f, 0}, {1.5f, 0}, {3, 0}});
    t.channels[0].name = "Comp-x";
    EXPECT_EQ(inside(tree, t, "r"), (std::vector<uint8_t>{0, 1, 1}));
    tree.gates[0].dimensions[0].compensation.kind = CompensationRef::Kind::Uncompensated;
    EXPECT_THROW(inside(tree, t, "r"), InputError);
}

TEST(GateTree, SelfCrossingPolygonFollowsTheEvenOddRule) {
    // A bow tie: (0,0) (2,2) (2,0) (0,2) crosses itself at (1,1); a five-point star's centre
    // is outside by the even-odd rule.
    GateTree tree;
    GateNode star{GateNode::Kind::Polygon, "star", "", "", {dim("x"), dim("y")}};
    for (int k = 0; k < 5; ++k) {
        const double a = M_PI / 2 + k * 4 * M_PI / 5;
        star.vertices.push_back(std::cos(a));
        star.vertices.push_back(std::sin(a));
    }
    tree.gates.push_back(star);
    const io::Table t = table({{0, 0}, {0, 0.8f}, {0, -2}, {NAN, 0.8f}});
    EXPECT_EQ(inside(tree, t, "star"), (std::vector<uint8_t>{0, 1, 0, 0}));
}

TEST(GateTree, EllipsoidBoundaryIsInside) {
    GateTree tree;
    GateNode e{GateNode::Kind::Ellipsoid, "e", "", "", {dim("x"), dim("y")}};
    e.mean = {0, 0};
    e.covariance = {4, 0, 0, 1};  // half-axes 2 and 1 at distanceSquare 1
    e.distanceSquare = 1;
    tree.gates.push_back(e);
    const io::Table t = table({{2, 0}, {0, 1}, {2.01f, 0}, {1.5f, 0.6f}, {0, NAN}});
    EXPECT_EQ(inside(tree, t, "e"), (std::vector<uint8_t>{1, 1, 0, 1, 0}));
}

/// Quadrants "q" of x and y cut at 1 (pp, the upper right one, named `upperRight`) and a
/// rectangle "low" (x below 3, named `lowName`) inside pp.
GateTree quadrantsWithLowInside(const std::string& upperRight, const std::string& lowName) {
    GateTree tree;
    GateNode q{GateNode::Kind::Quadrant, "q", "", ""};
    q.dividers = {{"dx", dim("x"), {1.0}}, {"dy", dim("y"), {1.0}}};
    q.quadrants = {{"pp", upperRight, {2, 2}},
                   {"pn", "x+ y-", {2, 0}},
                   {"np", "", {0, 2}},
                   {"nn", "", {0, 0}}};
    tree.gates.push_back(q);
    tree.gates.push_back({GateNode::Kind::Rectangle, "low", lowName, "pp", {dim("x", {}, 3.0)}});
    return tree;
}

TEST(GateTree, QuadrantsAreTheirOwnPopulationsAndParentsAndBooleansCompose) {
    GateTree tree = quadrantsWithLowInside("x+ y+", "low x");
    GateNode notChild{GateNode::Kind::Boolean, "rest", "", ""};
    notChild.operation = GateNode::Operation::Not;
    notChild.operands = {{"low", false}};
    tree.gates.push_back(notChild);
    const io::Table t = table({{1, 1}, {0.5f, 1}, {5, 5}, {2, 0}, {NAN, 2}});
    const GateMembership m = evaluateGates(tree, t);
    EXPECT_EQ(m.of("pp"), (std::vector<uint8_t>{1, 0, 1, 0, 0}));  // x = 1 is on the upper side
    EXPECT_EQ(m.of("np"), (std::vector<uint8_t>{0, 1, 0, 0, 0}));
    EXPECT_EQ(m.of("pn"), (std::vector<uint8_t>{0, 0, 0, 1, 0}));
    EXPECT_EQ(m.of("low"), (std::vector<uint8_t>{1, 0, 0, 0, 0}));  // inside pp and x < 3
    EXPECT_EQ(m.of("rest"), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
    const std::vector<GateCount> counts = gateCounts(tree, m);
    const auto low =
        std::find_if(counts.begin(), counts.end(), [](auto& c) { return c.id == "low"; });
    EXPECT_EQ(low->path, "q/x+ y+/low x");
    EXPECT_EQ(low->parentEvents, 2u);
    EXPECT_DOUBLE_EQ(low->percentOfParent(), 50.0);
    EXPECT_EQ(tree.population("/q/x+ y+/low x").id, "low");
    EXPECT_EQ(tree.population("low x").id, "low");
    EXPECT_THROW(tree.population("nowhere"), InputError);
}

TEST(GateTree, EachSamplesCountsAreItsOwnEventsAndTheTableQuotesPaths) {
    // A rectangle under a quadrant, on two samples of 3 and 2 events one after the other.
    const GateTree tree = quadrantsWithLowInside("x+, y+", "low");
    const io::Table t = table({{2, 2}, {5, 5}, {0, 0}, {1.5f, 1.5f}, {2, 0}});
    const GateMembership m = evaluateGates(tree, t);
    const std::vector<GateCount> first = gateCountsOfEvents(tree, m, 0, 3);
    const std::vector<GateCount> second = gateCountsOfEvents(tree, m, 3, 2);
    auto of = [](const std::vector<GateCount>& counts, const std::string& id) {
        return *std::find_if(counts.begin(), counts.end(), [&](auto& c) { return c.id == id; });
    };
    EXPECT_EQ(of(first, "pp").events, 2u);
    EXPECT_EQ(of(first, "pp").parentEvents, 3u);  // the quadrant gate holds the sample's events
    EXPECT_EQ(of(first, "low").events, 1u);
    EXPECT_EQ(of(first, "low").parentEvents, 2u);
    EXPECT_EQ(of(second, "pp").events, 1u);
    EXPECT_EQ(of(second, "pn").events, 1u);
    EXPECT_EQ(of(second, "low").allEvents, 2u);
    // The two samples add up to the whole data's counts.
    const std::vector<GateCount> all = gateCounts(tree, m);
    for (const GateCount& c : all)
        EXPECT_EQ(of(first, c.id).events + of(second, c.id).events, c.events) << c.id;
    EXPECT_THROW(gateCountsOfEvents(tree, m, 4, 2), InputError);
    // gate_counts.csv: a row per sample and population; a path with a comma quoted.
    const std::string text = gateCountsCsv({{"s1", first}, {"s2", second}});
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "sample,gate,path,events,parent_events,percent_of_parent,percent_of_all");
    EXPECT_NE(text.find("\ns1,pp,\"q/x+, y+\",2,3,66.6667,66.6667\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\ns2,low,\"q/x+, y+/low\",1,1,100.0000,50.0000\n"), std::string::npos)
        << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 2 * 5);
    // Summed block by block (apply's files come in blocks), the first sample's events in two
    // blocks of 2 and 1 give its counts; a second sample's row stays apart; the sums survive a
    // round through values() (the ranks' total).
    GateCountSums sums(tree, 2);
    sums.add(0, gateCountsOfEvents(tree, m, 0, 2));
    sums.add(0, gateCountsOfEvents(tree, m, 2, 1));
    sums.add(1, second);
    GateCountSums total(tree, 2);
    total.setValues(sums.values());
    EXPECT_EQ(gateCountsCsv(total.counts({"s1", "s2"})), text);
    EXPECT_THROW(sums.add(2, second), InputError);
    EXPECT_THROW(total.setValues({1, 2}), InputError);
}

TEST(GateTree, BrokenTreesAreRefusedWithTheGateNamed) {
    GateTree cycle;
    cycle.gates.push_back({GateNode::Kind::Rectangle, "a", "", "b", {dim("x", 0.0)}});
    cycle.gates.push_back({GateNode::Kind::Rectangle, "b", "", "a", {dim("x", 0.0)}});
    try {
        cycle.validate("f.xml");
        FAIL() << "a cycle of parents was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("its own ancestor"), std::string::npos) << e.what();
    }
    GateTree orphan;
    orphan.gates.push_back({GateNode::Kind::Rectangle, "a", "", "gone", {dim("x", 0.0)}});
    EXPECT_THROW(orphan.validate("f.xml"), InputError);
    GateTree unbounded;
    unbounded.gates.push_back({GateNode::Kind::Rectangle, "a", "", "", {dim("x")}});
    EXPECT_THROW(unbounded.validate("f.xml"), InputError);
    GateTree missing;
    missing.gates.push_back({GateNode::Kind::Rectangle, "a", "", "", {dim("nope", 0.0)}});
    try {
        evaluateGates(missing, table({{1, 1}}));
        FAIL() << "a missing channel was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("\"nope\""), std::string::npos) << e.what();
    }
}

TEST(GateTree, ScalesMapBackAndForth) {
    const GateScale::Kind kinds[] = {GateScale::Kind::Linear,   GateScale::Kind::Log,
                                     GateScale::Kind::Asinh,    GateScale::Kind::Logicle,
                                     GateScale::Kind::Hyperlog, GateScale::Kind::Biex};
    for (GateScale::Kind k : kinds) {
        GateScale s;
        s.kind = k;
        s.T = 10000;
        s.W = 1;
        s.M = 4.5;
        s.A = k == GateScale::Kind::Linear ? 500 : 0;
        const ScaleFunction f(s);
        for (double x : {-50.0, 0.5, 3.0, 100.0, 9999.0}) {
            if (k == GateScale::Kind::Log && x <= 0) {
                EXPECT_TRUE(std::isnan(f(x)));
                continue;
            }
            EXPECT_NEAR(f.inverse(f(x)), x, 1e-9 * std::max(1.0, std::abs(x)))
                << scaleKindName(k) << " at " << x;
        }
    }
    GateScale bad;
    bad.kind = GateScale::Kind::Logicle;
    bad.W = 3;  // more than M / 2
    EXPECT_THROW(ScaleFunction{bad}, InputError);
}

TEST(GateTree, JsonAndGatingMlRoundTripEveryKind) {
    GateTree tree;
    tree.matrices.push_back({"m", {"A", "B"}, {"x", "y"}, {1, 0.1, 0.05, 1}, false});
    GateDimension logicle = dim("A");
    logicle.compensation = {CompensationRef::Kind::Matrix, "m"};
    logicle.scale = {GateScale::Kind::Logicle, 262144, 0.5, 4.5, 0};
    logicle.min = 0.2;
    tree.gates.push_back({GateNode::Kind::Rectangle, "r", "Cells", "", {logicle}});
    GateNode poly{GateNode::Kind::Polygon, "p", "Live", "r", {dim("x"), dim("y")}};
    poly.vertices = {0, 0, 1, 0, 0.5, 1.0 / 3};
    tree.gates.push_back(poly);
    GateNode e{GateNode::Kind::Ellipsoid, "e", "", "p", {dim("x"), dim("y")}};
    e.mean = {0.1, 0.2};
    e.covariance = {1, 0.3, 0.3, 2};
    e.distanceSquare = 2.5;
    tree.gates.push_back(e);
    GateNode q{GateNode::Kind::Quadrant, "q", "", "r"};
    q.dividers = {{"d", dim("y"), {1.0, 2.0}}};
    q.quadrants = {{"lo", "", {0}}, {"mid", "middle", {1.5}}};
    tree.gates.push_back(q);
    GateNode b{GateNode::Kind::Boolean, "b", "either", ""};
    b.operation = GateNode::Operation::Or;
    b.operands = {{"e", false}, {"mid", true}};
    tree.gates.push_back(b);
    tree.validate("test");
    EXPECT_EQ(gateTreeFromJson(gateTreeToJson(tree), "json"), tree);
    const GateTree back = parseGatingMl(gatingMlText(tree), "xml");
    EXPECT_EQ(back, tree) << gateTreeToJson(back).dump() << "\n" << gateTreeToJson(tree).dump();
}

// Gating-ML's ids are xs:IDs (NCNames: no spaces or '+', no leading digit), while Sepal's come
// from what users type ("live cells", "CD4+ CD8-"): written as NCNames, each once, with the
// names beside them, references following, and the same events read back.
TEST(GateTree, GatingMlIdsAreXmlIdsAndTheNamesStay) {
    GateTree tree;
    tree.matrices.push_back({"4c2d", {"x", "y"}, {"x", "y"}, {1, 0.1, 0.05, 1}, false});
    GateDimension x = dim("x", 1.0);
    x.compensation = {CompensationRef::Kind::Matrix, "4c2d"};
    tree.gates.push_back({GateNode::Kind::Rectangle, "live cells", "", "", {x}});
    GateNode q{GateNode::Kind::Quadrant, "QQ CD4+", "", "live cells"};
    q.dividers = {{"1st divider", dim("y"), {2.0}}};
    q.quadrants = {{"CD4+ CD8-", "", {3.0}}, {"CD4- CD8-", "", {1.0}}};
    tree.gates.push_back(q);
    GateNode b{GateNode::Kind::Boolean, "not CD4+", "", "live cells"};
    b.operation = GateNode::Operation::Not;
    b.operands = {{"CD4+ CD8-", false}};
    tree.gates.push_back(b);
    tree.gates.push_back({GateNode::Kind::Rectangle, "live_cells", "", "", {dim("y", 0.5)}});
    tree.validate("test");

    const std::string text = gatingMlText(tree);
    std::vector<std::string> ids;
    // Elements' own ids (gating:id, transforms:id), not references such as gating:parent_id.
    for (size_t at = text.find(":id=\""); at != std::string::npos; at = text.find(":id=\"", at)) {
        at += 5;
        ids.push_back(text.substr(at, text.find('"', at) - at));
    }
    ASSERT_GE(ids.size(), 8u) << text;
    for (const std::string& id : ids) {
        EXPECT_TRUE(std::isalpha(static_cast<unsigned char>(id[0])) || id[0] == '_') << id;
        EXPECT_EQ(id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789._-"),
                  std::string::npos)
            << id;
    }
    std::vector<std::string> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << text;

    const GateTree back = parseGatingMl(text, "xml");
    std::vector<std::string> paths, pathsBack;
    for (const auto& p : tree.populations()) paths.push_back(p.path);
    for (const auto& p : back.populations()) pathsBack.push_back(p.path);
    EXPECT_EQ(pathsBack, paths);
    io::Table t = table({{0.5f, 3}, {2, 3}, {2, 1}, {3, 0.2f}});
    const GateMembership before = evaluateGates(tree, t), after = evaluateGates(back, t);
    for (size_t i = 0; i < tree.populations().size(); ++i)
        EXPECT_EQ(after.of(back.populations()[i].id), before.of(tree.populations()[i].id))
            << paths[i];
}

// Cytobank's Gating-ML names its gates in custom_info (<cytobank><name>), its ids are codes.
TEST(GateTree, CytobanksGateNamesAreRead) {
    const GateTree tree = parseGatingMl(R"(<?xml version="1.0" encoding="UTF-8"?>
<gating:Gating-ML xmlns:gating="http://www.isac-net.org/std/Gating-ML/v2.0/gating"
 xmlns:data-type="http://www.isac-net.org/std/Gating-ML/v2.0/datatypes">
<gating:RectangleGate gating:id="Gate_1_Q2VsbHM_">
 <data-type:custom_info><cytobank><name> Cells </name><id>1</id></cytobank></data-type:custom_info>
 <gating:dimension gating:min="0.3"><data-type:fcs-dimension data-type:name="x"/></gating:dimension>
</gating:RectangleGate>
</gating:Gating-ML>)",
                                        "cytobank.xml");
    ASSERT_EQ(tree.gates.size(), 1u);
    EXPECT_EQ(tree.gates[0].name, "Cells");
    EXPECT_EQ(tree.populations()[0].path, "Cells");
}

TEST(GateTree, EarlierFlatGatesReadAsAChainWithTheSameCells) {
    const io::Table demo = demo::makeDemoTable(3000, 7);
    Gate live;
    live.name = "live";
    live.axes = gateAxes(demo, "Ir191Di", "Pt195Di", {});
    live.polygon = {4, -1, 9, -1, 9, 3, 4, 3};
    Gate second = live;
    second.name = "second";
    second.axes = gateAxes(demo, "Ir191Di", "Time", {});
    second.polygon = rectanglePolygon(5, -1e9f, 8, 1e9f);
    const std::vector<Gate> flat = {live, second};
    const GateTree tree = gateTreeFromJson(gatesToJson(flat), "old.json");
    ASSERT_EQ(tree.gates.size(), 2u);
    EXPECT_EQ(tree.gates[1].parent, tree.gates[0].id);
    EXPECT_EQ(tree.population("live/second").id, tree.gates[1].id);
    const std::vector<uint8_t> old = insideGates(demo, flat);
    const std::vector<uint8_t> now = evaluateGates(tree, demo).of(tree.gates[1].id);
    size_t differ = 0, kept = 0;
    for (size_t i = 0; i < old.size(); ++i) {
        differ += old[i] != now[i];
        kept += now[i];
    }
    EXPECT_GT(kept, 100u);
    EXPECT_EQ(differ, 0u);
}

}  // namespace
}  // namespace sepal
