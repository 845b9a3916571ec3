// FlowJo workspaces read and written back: a workspace shows each parameter on one transform,
// rectangles (bounds in data units) hold the same events on any, and polygons are straight on
// their parameter's transform, so the transforms must survive a round trip. Each sample carries
// the matrix FlowJo compensates it by, and boolean gates name their populations by path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/common/error.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/gate_membership.h"
#include "core/gate/gate_selection.h"

namespace sepal {
namespace {

// Events along x = 10^(i / 20) - 30 (negatives to 10^5) with y a multiple of x.
io::Table events() {
    io::Table t;
    t.channels = {{"FL1-A", "", 0, 32}, {"FL2-A", "", 0, 32}};
    constexpr size_t n = 120;
    t.values = Matrix(n, 2);
    for (size_t i = 0; i < n; ++i) {
        const float x = float(std::pow(10.0, double(i) / 20.0) - 30.0);
        t.values.at(i, 0) = x;
        t.values.at(i, 1) = x * (0.2f + 0.01f * float(i % 7));
    }
    return t;
}

// A workspace with logicle on both parameters, a rectangle and a polygon under it.
const char* kWorkspace = R"(<?xml version="1.0" encoding="UTF-8"?>
<Workspace version="20.0" xmlns:gating="http://www.isac-net.org/std/Gating-ML/v2.0/gating"
 xmlns:transforms="http://www.isac-net.org/std/Gating-ML/v2.0/transformations"
 xmlns:data-type="http://www.isac-net.org/std/Gating-ML/v2.0/datatypes">
<SampleList><Sample><DataSet uri="file:/data/a.fcs" sampleID="1"/>
<Transformations>
<transforms:logicle transforms:length="256" transforms:T="262144" transforms:W="0.5" transforms:M="4.5" transforms:A="0"><data-type:parameter data-type:name="FL1-A"/></transforms:logicle>
<transforms:logicle transforms:length="256" transforms:T="262144" transforms:W="0.5" transforms:M="4.5" transforms:A="0"><data-type:parameter data-type:name="FL2-A"/></transforms:logicle>
</Transformations>
<SampleNode name="a.fcs" count="120" sampleID="1"><Subpopulations>
<Population name="Bright" count="-1"><Gate gating:id="R"><gating:RectangleGate gating:id="R">
<gating:dimension gating:min="10"><data-type:fcs-dimension data-type:name="FL1-A"/></gating:dimension>
</gating:RectangleGate></Gate><Subpopulations>
<Population name="Wedge" count="-1"><Gate gating:id="P"><gating:PolygonGate gating:id="P" gating:parent_id="R">
<gating:dimension><data-type:fcs-dimension data-type:name="FL1-A"/></gating:dimension>
<gating:dimension><data-type:fcs-dimension data-type:name="FL2-A"/></gating:dimension>
<gating:vertex><gating:coordinate data-type:value="20"/><gating:coordinate data-type:value="2"/></gating:vertex>
<gating:vertex><gating:coordinate data-type:value="90000"/><gating:coordinate data-type:value="10000"/></gating:vertex>
<gating:vertex><gating:coordinate data-type:value="90000"/><gating:coordinate data-type:value="40000"/></gating:vertex>
</gating:PolygonGate></Gate><Subpopulations/></Population>
</Subpopulations></Population>
</Subpopulations></SampleNode></Sample></SampleList></Workspace>
)";

size_t countOf(const std::vector<uint8_t>& in) {
    size_t n = 0;
    for (uint8_t v : in) n += v;
    return n;
}

}  // namespace

TEST(FlowJoWorkspaceFile, RectanglesTakeTheirParametersTransformAndKeepTheirEvents) {
    const GateTree tree = readFlowJoWorkspace(kWorkspace, "w.wsp").tree;
    const GateNode* rect = tree.find("R");
    ASSERT_NE(rect, nullptr);
    EXPECT_EQ(rect->dimensions[0].scale.kind, GateScale::Kind::Logicle);
    const io::Table t = events();
    const GateMembership inside = evaluateGates(tree, t);
    // The rectangle's events are those at or above 10 in data units, whatever its scale.
    size_t expected = 0;
    for (size_t i = 0; i < t.events(); ++i) expected += t.values.at(i, 0) >= 10.0f ? 1 : 0;
    EXPECT_EQ(countOf(inside.of("R")), expected);
    const size_t wedge = countOf(inside.of("P"));
    EXPECT_GT(wedge, 0u);

    // Written back and read again: logicle on both parameters, the same events in each gate.
    const std::string text = flowJoWorkspaceText(tree, {{"/data/a.fcs", 120}});
    EXPECT_EQ(text.find("transforms:linear"), std::string::npos) << text;
    const GateTree again = readFlowJoWorkspace(text, "again.wsp").tree;
    const GateMembership back = evaluateGates(again, t);
    EXPECT_EQ(back.of("R"), inside.of("R"));
    EXPECT_EQ(back.of("P"), inside.of("P"));
}

// Sepal's own gates: a rectangle drawn on a linear axis before a polygon drawn on logicle. The
// workspace shows the parameter on the polygon's scale (the rectangle holds its events on any);
// two polygons on one parameter but different scales cannot both be kept, and are refused.
TEST(FlowJoWorkspaceFile, APolygonsScaleOutranksARectangleAndTwoScalesAreRefused) {
    GateTree tree = readFlowJoWorkspace(kWorkspace, "w.wsp").tree;
    GateNode* rect = nullptr;
    for (GateNode& g : tree.gates)
        if (g.id == "R") rect = &g;
    ASSERT_NE(rect, nullptr);
    rect->dimensions[0].scale = GateScale{};
    rect->dimensions[0].min = 10.0;
    const io::Table t = events();
    const GateMembership inside = evaluateGates(tree, t);
    const GateTree again =
        readFlowJoWorkspace(flowJoWorkspaceText(tree, {{"/data/a.fcs", 120}}), "again.wsp").tree;
    const GateMembership back = evaluateGates(again, t);
    EXPECT_EQ(back.of("R"), inside.of("R"));
    EXPECT_EQ(back.of("P"), inside.of("P"));

    GateNode second = *tree.find("P");
    second.id = "P2";
    second.name = "Wedge on arcsinh";
    second.dimensions[0].scale.kind = GateScale::Kind::Asinh;
    tree.gates.push_back(second);
    try {
        flowJoWorkspaceText(tree, {{"/data/a.fcs", 120}});
        FAIL() << "two polygons on different scales of one parameter were written";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("another scale than a polygon"), std::string::npos)
            << e.what();
    }
}

// FlowJo compensates a sample with one matrix and names every compensated parameter "Comp-"
// after it: gates on the file's own matrix and on another cannot share a workspace (written
// alike, the file's gates were read back compensated with the other matrix).
TEST(FlowJoWorkspaceFile, GatesOnTwoCompensationsAreRefused) {
    GateTree tree = readFlowJoWorkspace(kWorkspace, "w.wsp").tree;
    tree.matrices.push_back(
        SpectrumMatrix{"M2", {"FL1-A", "FL2-A"}, {"FL1-A", "FL2-A"}, {1, 0.1, 0, 1}, false});
    for (GateNode& g : tree.gates)
        for (GateDimension& d : g.dimensions)
            d.compensation = g.id == "R" ? CompensationRef{CompensationRef::Kind::File, ""}
                                         : CompensationRef{CompensationRef::Kind::Matrix, "M2"};
    try {
        flowJoWorkspaceText(tree, {{"/data/a.fcs", 120}});
        FAIL() << "gates on two compensations were written as one";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("two compensations"), std::string::npos) << e.what();
    }
}

// Quadrants become populations beside the parent's others: two quadrant gates with the same
// quadrant names would give FlowJo two "A+ B+" under one parent (read back as one path).
TEST(FlowJoWorkspaceFile, TwoQuadrantGatesQuadrantsAreToldApartByTheirGate) {
    GateTree tree;
    for (const char* gate : {"QA", "QB"}) {
        GateNode q{GateNode::Kind::Quadrant, gate, "", ""};
        GateDimension x, y;
        x.channel = "FL1-A";
        y.channel = "FL2-A";
        const double cut = gate == std::string("QA") ? 10 : 100;
        q.dividers = {{std::string(gate) + "x", x, {cut}}, {std::string(gate) + "y", y, {cut / 4}}};
        q.quadrants = {{std::string(gate) + "pp", "A+ B+", {2 * cut, cut}},
                       {std::string(gate) + "pn", "A+ B-", {2 * cut, 0}},
                       {std::string(gate) + "np", "A- B+", {0, cut}},
                       {std::string(gate) + "nn", "A- B-", {0, 0}}};
        tree.gates.push_back(q);
    }
    tree.validate("test");
    const std::string text = flowJoWorkspaceText(tree, {{"/data/a.fcs", 120}});
    EXPECT_NE(text.find("name=\"QA: A+ B+\""), std::string::npos) << text;
    EXPECT_NE(text.find("name=\"QB: A+ B+\""), std::string::npos) << text;
    const GateTree back = readFlowJoWorkspace(text, "w.wsp").tree;
    const auto paths = back.populations();
    ASSERT_EQ(paths.size(), 8u);
    const io::Table t = events();
    const GateMembership before = evaluateGates(tree, t), after = evaluateGates(back, t);
    const auto original = tree.populations();
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(after.of(paths[i].id), before.of(original[i].id)) << i;
}

// Gates on the file's own matrix (Gating-ML's "FCS") over files without one read their values as
// they are: a workspace names the plain parameters there, where "Comp-FL1-A" would be none of
// FlowJo's; files with a matrix get its "Comp-" parameters.
TEST(FlowJoWorkspaceFile, TheFilesMatrixOnFilesWithoutOneIsNoCompParameter) {
    GateTree tree = readFlowJoWorkspace(kWorkspace, "w.wsp").tree;
    for (GateNode& g : tree.gates)
        for (GateDimension& d : g.dimensions)
            d.compensation = CompensationRef{CompensationRef::Kind::File, ""};
    const std::string without = flowJoWorkspaceText(tree, {{"/data/a.fcs", 120, false}});
    EXPECT_EQ(without.find("Comp-"), std::string::npos) << without;
    const GateMembership before = evaluateGates(tree, events());
    const GateMembership after =
        evaluateGates(readFlowJoWorkspace(without, "w.wsp").tree, events());
    EXPECT_EQ(after.of("P"), before.of("P"));
    const std::string with = flowJoWorkspaceText(tree, {{"/data/a.fcs", 120, true}});
    EXPECT_NE(with.find("\"Comp-FL1-A\""), std::string::npos);
}

// FlowJo compensates a sample by the matrix inside its <Sample>: gates on the file's matrix carry
// the file's own there as FlowJo's "Acquisition-defined", which reads back as the file's matrix
// (not as a matrix of the workspace), with each "Comp-" parameter's detector on its transform.
TEST(FlowJoWorkspaceFile, TheFilesOwnMatrixIsTheSamplesAcquisitionDefinedOne) {
    GateTree tree = readFlowJoWorkspace(kWorkspace, "w.wsp").tree;
    for (GateNode& g : tree.gates)
        for (GateDimension& d : g.dimensions)
            d.compensation = CompensationRef{CompensationRef::Kind::File, ""};
    io::Spillover own;
    own.channels = {"FL1-A", "FL2-A"};
    own.matrix = Matrix(2, 2);
    own.matrix.values = {1.0f, 0.15f, 0.02f, 1.0f};
    const std::string text = flowJoWorkspaceText(tree, {{"/data/a.fcs", 120, true, own}});
    const size_t sample = text.find("<Sample>"), matrix = text.find("name=\"Acquisition-defined\"");
    ASSERT_NE(matrix, std::string::npos) << text;
    EXPECT_LT(sample, matrix);
    EXPECT_LT(matrix, text.find("<Transformations>"));
    EXPECT_NE(text.find("transforms:value=\"0.15\""), std::string::npos) << text;
    const size_t transforms = text.find("<Transformations>");
    EXPECT_NE(text.find("data-type:name=\"FL1-A\"", transforms), std::string::npos)
        << "the detector of Comp-FL1-A has no transform:\n"
        << text;
    const GateTree back = readFlowJoWorkspace(text, "w.wsp").tree;
    EXPECT_TRUE(back.matrices.empty());
    for (const GateNode& g : back.gates)
        for (const GateDimension& d : g.dimensions) {
            EXPECT_EQ(d.compensation.kind, CompensationRef::Kind::File) << g.id;
            EXPECT_EQ(d.channel.rfind("Comp-", 0), std::string::npos) << d.channel;
        }
}

// FlowJo's boolean gates name their populations by paths from the sample ("Cells/A"): a
// workspace names them so, and reads back to the same events.
TEST(FlowJoWorkspaceFile, BooleanGatesNameTheirPopulationsByPath) {
    auto rectangle = [](const char* id, const char* parent, const char* channel, double min) {
        GateNode g{GateNode::Kind::Rectangle, id, id, parent};
        GateDimension d;
        d.channel = channel;
        d.min = min;
        g.dimensions = {d};
        return g;
    };
    GateTree tree;
    tree.gates = {rectangle("Cells", "", "FL1-A", 0), rectangle("A", "Cells", "FL1-A", 100),
                  rectangle("B", "Cells", "FL2-A", 40)};
    GateNode both{GateNode::Kind::Boolean, "AB", "A and B", "Cells"};
    both.operands = {{"A", false}, {"B", false}};
    GateNode notA{GateNode::Kind::Boolean, "notA", "not A", "Cells"};
    notA.operation = GateNode::Operation::Not;
    notA.operands = {{"A", false}};
    tree.gates.push_back(both);
    tree.gates.push_back(notA);
    tree.validate("test");
    const std::string text = flowJoWorkspaceText(tree, {{"/data/a.fcs", 120}});
    EXPECT_NE(text.find("<Dependent name=\"Cells/A\" />"), std::string::npos) << text;
    EXPECT_NE(text.find("<Dependent name=\"Cells/B\" />"), std::string::npos) << text;
    // Every population and boolean node names the group that owns it, as FlowJo writes them
    // (FlowKit fails on a population without): the group's node and 5 nodes under it and under
    // the one sample.
    const auto count = [&](const std::string& word) {
        size_t n = 0;
        for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
            ++n;
        return n;
    };
    EXPECT_EQ(count("<Population ") + count("<AndNode ") + count("<NotNode "), 10u);
    EXPECT_EQ(count("owningGroup=\"All Samples\""), 11u) << text;
    const GateTree back = readFlowJoWorkspace(text, "w.wsp").tree;
    const io::Table t = events();
    const GateMembership before = evaluateGates(tree, t), after = evaluateGates(back, t);
    for (const char* path : {"Cells/A and B", "Cells/not A"}) {
        const std::vector<uint8_t>& in = before.of(tree.population(path).id);
        EXPECT_EQ(after.of(back.population(path).id), in) << path;
        EXPECT_GT(countOf(in), 0u) << path;
        EXPECT_LT(countOf(in), t.events()) << path;
    }
}

// Export > Gates picks the format by the extension, whatever its case: "gates.WSP" is a
// workspace, not Sepal's JSON under FlowJo's extension.
TEST(FlowJoWorkspaceFile, AnExtensionInCapitalsStillWritesAWorkspace) {
    GateSelection selection;
    selection.tree = readFlowJoWorkspace(kWorkspace, "w.wsp").tree;
    const std::string path =
        (std::filesystem::temp_directory_path() / "sepal_test_gates.WsP").string();
    writeGateSelection(path, selection, {"/data/a.fcs"});
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::filesystem::remove(path);
    EXPECT_NE(text.find("<Workspace"), std::string::npos) << text.substr(0, 200);
}

// FlowJo compensates each sample by the matrix inside it; the workspace's <Matrices> is a library.
// Two samples on two matrices keep theirs, and one on its file's own matrix ("Acquisition-
// defined") is not compensated by a listed matrix of the same detectors.
TEST(FlowJoWorkspaceFile, EachSampleIsCompensatedByItsOwnMatrix) {
    auto matrix = [](const char* name, const char* spill) {
        return std::string("<transforms:spilloverMatrix prefix=\"Comp-\" name=\"") + name +
               "\" transforms:id=\"" + name +
               "\" suffix=\"\"><data-type:parameters>"
               "<data-type:parameter data-type:name=\"FL1-A\"/><data-type:parameter "
               "data-type:name=\"FL2-A\"/></data-type:parameters>"
               "<transforms:spillover data-type:parameter=\"FL1-A\"><transforms:coefficient "
               "data-type:parameter=\"FL1-A\" transforms:value=\"1\"/><transforms:coefficient "
               "data-type:parameter=\"FL2-A\" transforms:value=\"" +
               spill +
               "\"/></transforms:spillover><transforms:spillover data-type:parameter=\"FL2-A\">"
               "<transforms:coefficient data-type:parameter=\"FL1-A\" transforms:value=\"0\"/>"
               "<transforms:coefficient data-type:parameter=\"FL2-A\" transforms:value=\"1\"/>"
               "</transforms:spillover></transforms:spilloverMatrix>";
    };
    auto sample = [](const std::string& id, const std::string& own) {
        return "<Sample><DataSet uri=\"file:/data/" + id + ".fcs\" sampleID=\"" + id + "\"/>" +
               own + "<SampleNode name=\"" + id + ".fcs\" sampleID=\"" + id +
               "\"><Subpopulations><Population name=\"Bright\"><Gate gating:id=\"R" + id +
               "\"><gating:RectangleGate gating:id=\"R" + id +
               "\"><gating:dimension gating:min=\"10\"><data-type:fcs-dimension "
               "data-type:name=\"Comp-FL2-A\"/></gating:dimension></gating:RectangleGate></Gate>"
               "</Population></Subpopulations></SampleNode></Sample>";
    };
    const std::string text =
        std::string(
            "<?xml version=\"1.0\"?><Workspace "
            "xmlns:gating=\"http://www.isac-net.org/std/Gating-ML/v2.0/gating\" "
            "xmlns:transforms=\"http://www.isac-net.org/std/Gating-ML/v2.0/"
            "transformations\" "
            "xmlns:data-type=\"http://www.isac-net.org/std/Gating-ML/v2.0/datatypes\">"
            "<Matrices>") +
        matrix("Library", "0.5") + "</Matrices><SampleList>" + sample("1", matrix("M1", "0.1")) +
        sample("2", matrix("M2", "0.3")) + sample("3", matrix("Acquisition-defined", "0.2")) +
        "</SampleList></Workspace>";
    const FlowJoWorkspace ws = readFlowJoWorkspace(text, "w.wsp");
    ASSERT_EQ(ws.samples.size(), 3u);
    auto compensation = [&](size_t s) {
        return ws.samples[s].tree.gates[0].dimensions[0].compensation;
    };
    EXPECT_EQ(compensation(0).kind, CompensationRef::Kind::Matrix);
    EXPECT_EQ(compensation(0).matrix, "M1");
    EXPECT_EQ(compensation(1).matrix, "M2");
    EXPECT_EQ(compensation(2).kind, CompensationRef::Kind::File);
    EXPECT_EQ(ws.samples[2].tree.gates[0].dimensions[0].channel, "FL2-A");
}

}  // namespace sepal
