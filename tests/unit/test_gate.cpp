// Gates: polygons on two scaled channels that keep the cells inside; their JSON, their default
// axes, and keepRows, which cuts a table down to the gated cells.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/gate/gate.h"
#include "fresh_dir.h"

namespace sepal {
namespace {

TEST(Gate, InsidePolygonFollowsTheOutline) {
    // An L shape: the notch at the upper right is outside.
    const std::vector<float> l = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};
    EXPECT_TRUE(insidePolygon(l, 0.5f, 0.5f));
    EXPECT_TRUE(insidePolygon(l, 1.5f, 0.5f));
    EXPECT_TRUE(insidePolygon(l, 0.5f, 1.5f));
    EXPECT_FALSE(insidePolygon(l, 1.5f, 1.5f));
    EXPECT_FALSE(insidePolygon(l, -0.1f, 0.5f));
    EXPECT_FALSE(insidePolygon(l, NAN, 0.5f));
    EXPECT_TRUE(insidePolygon(rectanglePolygon(3, 4, 1, 2), 2, 3));  // corners in any order
}

TEST(Gate, DefaultAxesAreLinearForScatterAndArcsinhForMarkers) {
    const io::Table demo = demo::makeDemoTable(100, 1);
    const TransformPipeline axes = gateAxes(demo, "DNA1", "Time", {});
    ASSERT_EQ(axes.steps.size(), 2u);
    EXPECT_EQ(axes.steps[0].name, "Ir191Di");  // named by its marker, kept by its channel
    EXPECT_EQ(axes.steps[0].transform.kind, ColumnTransform::Kind::Arcsinh);
    EXPECT_EQ(axes.steps[0].transform.cofactor, 5.0);  // mass cytometry
    EXPECT_EQ(axes.steps[1].transform.kind, ColumnTransform::Kind::Linear);
    EXPECT_THROW(gateAxes(demo, "CD999", "Time", {}), InputError);
}

TEST(Gate, KeepsTheCellsInsideEveryGateAndTheirRows) {
    const io::Table demo = demo::makeDemoTable(4000, 2);
    Gate live{"live", gateAxes(demo, "DNA1", "Cisplatin", {}), rectanglePolygon(4, -1, 9, 3)};
    const std::vector<uint8_t> inside = insideGates(demo, {live});
    size_t kept = 0;
    const int dna = demo.findChannel("Ir191Di"), cis = demo.findChannel("Pt195Di");
    for (size_t i = 0; i < demo.events(); ++i) {
        const double x = std::asinh(demo.values.at(i, size_t(dna)) / 5.0);
        const double y = std::asinh(demo.values.at(i, size_t(cis)) / 5.0);
        EXPECT_EQ(inside[i] != 0, x > 4 && x < 9 && y > -1 && y < 3) << "event " << i;
        kept += inside[i];
    }
    // The demo makes about 5% of its cells dead (bright in cisplatin).
    EXPECT_GT(kept, demo.events() * 90 / 100);
    EXPECT_LT(kept, demo.events());
    // A second gate that keeps nothing empties the intersection.
    Gate none{"none", gateAxes(demo, "DNA1", "Cisplatin", {}), rectanglePolygon(50, 50, 60, 60)};
    const auto both = insideGates(demo, {live, none});
    EXPECT_EQ(std::count(both.begin(), both.end(), 1), 0);

    const io::Table cut = io::keepRows(demo, inside);
    ASSERT_EQ(cut.events(), kept);
    ASSERT_EQ(cut.labels.size(), demo.labels.size());
    size_t at = 0;
    for (size_t i = 0; i < demo.events(); ++i) {
        if (!inside[i]) continue;
        for (size_t c = 0; c < demo.values.cols; ++c)
            ASSERT_EQ(cut.values.at(at, c), demo.values.at(i, c));
        for (size_t l = 0; l < demo.labels.size(); ++l)
            ASSERT_EQ(cut.labels[l].codes[at], demo.labels[l].codes[i]);
        ++at;
    }
}

TEST(Gate, FilesRoundTripAndBrokenOnesAreNamed) {
    const io::Table demo = demo::makeDemoTable(100, 1);
    const std::vector<Gate> gates = {
        {"live", gateAxes(demo, "DNA1", "Cisplatin", {}), rectanglePolygon(4, -1, 9, 3)},
        {"small", gateAxes(demo, "Event_length", "DNA2", {}), {10, 4, 40, 4, 25, 8}}};
    const auto dir = test::freshDir("gates");
    const std::string path = (dir / "gates.json").string();
    writeGatesFile(path, gates);
    EXPECT_EQ(readGatesFile(path), gates);

    const auto broken = [](const std::string& json) {
        try {
            gatesFromJson(nlohmann::json::parse(json), "f.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(broken(R"([{"name": "a", "axes": {"columns": []}, "polygon": [0, 0, 1, 0, 1, 1]}])")
                  .find("0 axes"),
              std::string::npos);
    EXPECT_NE(broken(gatesToJson({{"tri", gates[0].axes, {0, 0, 1, 1}}}).dump()).find("3 x y"),
              std::string::npos);
    EXPECT_NE(broken(R"({"name": "a"})").find("must be an array"), std::string::npos);
    EXPECT_NE(broken(R"([{"name": "a"}])").find("gates[0]"), std::string::npos);
}

}  // namespace
}  // namespace sepal
