#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/model/landmark_edit.h"
#include "core/model/model_file.h"
#include "core/model/model_panel.h"

namespace sepal {

namespace {

LandmarkModel smallModel() {
    LandmarkModel m;
    m.resize(3, 2);
    m.high = {0.1f, 1e-7f, -3.25f, 4.0f, 1.0f / 3.0f, 123456.78f};
    m.low = {0.0f, 0.0f, 1.0f, 0.5f, -2.0f, 7.0f};
    m.locked = {0, kLockLow, kLockBoth};
    m.edges = {{0, 1}, {1, 2}};
    return m;
}

std::string tempPath(const char* name) {
    return (std::filesystem::temp_directory_path() / name).string();
}

std::string errorOf(const std::string& text) {
    const std::string path = tempPath("sepal_test_bad_model.json");
    std::ofstream(path) << text;
    try {
        loadModel(path);
    } catch (const InputError& e) {
        std::filesystem::remove(path);
        return e.what();
    }
    std::filesystem::remove(path);
    return "";
}

}  // namespace

TEST(ModelFile, RoundTripKeepsEveryValueExactly) {
    const LandmarkModel m = smallModel();
    const std::string path = tempPath("sepal_test_model.json");
    const nlohmann::json transform = {{"columns", {"CD3", "CD4"}}, {"arcsinh", 5}};
    EmbedParams params;
    params.k = 7;
    params.smooth = -1.5f;
    params.adjust = 0.25f;
    saveModel(path, m, {"CD3", "CD4"}, transform, params);
    const LoadedModel loaded = loadModel(path);
    std::filesystem::remove(path);
    EXPECT_EQ(loaded.model.dim, 2u);
    EXPECT_EQ(loaded.model.high, m.high);
    EXPECT_EQ(loaded.model.low, m.low);
    EXPECT_EQ(loaded.model.locked, m.locked);
    EXPECT_EQ(loaded.model.edges, m.edges);
    EXPECT_EQ(loaded.columns, (std::vector<std::string>{"CD3", "CD4"}));
    EXPECT_EQ(loaded.transform, transform);
    EXPECT_EQ(loaded.params.k, 7);
    EXPECT_EQ(loaded.params.smooth, -1.5f);
    EXPECT_EQ(loaded.params.adjust, 0.25f);
}

TEST(ModelFile, MalformedFieldsAreNamed) {
    const nlohmann::json good = modelToJson(smallModel(), {"a", "b"}, nullptr);
    EXPECT_NE(errorOf("{ not json").find("not valid JSON"), std::string::npos);
    auto noHigh = good;
    noHigh.erase("high");
    EXPECT_NE(errorOf(noHigh.dump()).find("\"high\" is missing"), std::string::npos);
    auto shortLow = good;
    shortLow["low"].erase(0);
    EXPECT_NE(errorOf(shortLow.dump()).find("\"low\" holds 5 values"), std::string::npos);
    auto badEdge = good;
    badEdge["edges"][1] = {1, 9};
    EXPECT_NE(errorOf(badEdge.dump()).find("\"edges\" element 1"), std::string::npos);
    auto future = good;
    future["version"] = 99;
    EXPECT_NE(errorOf(future.dump()).find("\"version\""), std::string::npos);
    auto badColumns = good;
    badColumns["columns"] = {"a"};
    EXPECT_NE(errorOf(badColumns.dump()).find("\"columns\""), std::string::npos);
}

TEST(ModelFile, PhenotypesAndMarkerClassesTravelWithTheModel) {
    const LandmarkModel m = smallModel();
    std::vector<ModelPopulation> pops = {{"CD4 T", {0, 2}, "CD3+ CD4+"}, {"B cells", {1}, ""}};
    const auto doc = modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, pops, {}, {},
                                 {MarkerClass::Type, MarkerClass::State});
    const LoadedModel back = modelFromJson(doc, "memory");
    EXPECT_EQ(back.populations[0].phenotype, "CD3+ CD4+");
    EXPECT_EQ(back.populations[1].phenotype, "");
    EXPECT_EQ(back.markerClasses,
              (std::vector<MarkerClass>{MarkerClass::Type, MarkerClass::State}));
    auto bad = doc;
    bad["marker_classes"] = {"type", "lineage"};
    EXPECT_THROW(modelFromJson(bad, "m.json"), InputError);
    bad["marker_classes"] = {"type"};
    EXPECT_THROW(modelFromJson(bad, "m.json"), InputError);
}

TEST(ModelFile, PopulationsTravelWithTheModel) {
    const LandmarkModel m = smallModel();
    const std::vector<ModelPopulation> pops = {{"CD3+ CD4+", {0, 2}}, {"B cells", {1}}};
    const LoadedModel back =
        modelFromJson(modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, pops), "memory");
    ASSERT_EQ(back.populations.size(), 2u);
    EXPECT_EQ(back.populations[0].name, "CD3+ CD4+");
    EXPECT_EQ(back.populations[0].landmarks, (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(groupsOfLandmarks(back.populations, m.count())[1], 1);
    // A model without populations has none; bad ones are named.
    EXPECT_TRUE(modelFromJson(modelToJson(m, {"a", "b"}, nullptr), "memory").populations.empty());
    auto bad = modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, pops);
    bad["populations"][1]["landmarks"] = nlohmann::json::array({uint32_t(0)});
    try {
        modelFromJson(bad, "m.json");
        ADD_FAILURE() << "a landmark in two populations was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("two populations"), std::string::npos) << e.what();
    }
    bad["populations"][1]["landmarks"] = nlohmann::json::array({uint32_t(99)});
    EXPECT_THROW(modelFromJson(bad, "m.json"), InputError);
    EXPECT_THROW(modelToJson(m, {"a", "b"}, nullptr, EmbedParams{}, {{"x", {7}}}), InputError);
}

TEST(ModelFile, SaveRefusesWrongColumnCountAndLeavesNoFile) {
    const std::string path = tempPath("sepal_test_model_wrong.json");
    EXPECT_THROW(saveModel(path, smallModel(), {"only-one"}, nullptr), InputError);
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(LandmarkEdit, DuplicateAddsANearbyCopyInBothSpaces) {
    LandmarkModel m = smallModel();
    const size_t i = duplicateLandmark(m, 1, 0.05f, 7);
    ASSERT_EQ(i, 3u);
    EXPECT_EQ(m.count(), 4u);
    EXPECT_EQ(m.locked[3], 0);
    const float dx = m.low[6] - m.low[2], dy = m.low[7] - m.low[3];
    EXPECT_GT(dx * dx + dy * dy, 0.0f);
    EXPECT_LT(dx * dx + dy * dy, 1.0f);
    EXPECT_NEAR(m.high[6], m.high[2], 0.5f);
    EXPECT_THROW(duplicateLandmark(m, 10), InputError);
}

}  // namespace sepal

namespace sepal {

TEST(ModelPanel, TheMarkersTravelWithTheModelAndAnotherPanelIsRefusedByName) {
    io::Table trained;
    trained.channels = {{"PE-A", "CD33"}, {"PE-Cy7-A", "CD3"}, {"APC-A", "HLA-DR"}, {"FSC-A", ""}};
    const std::vector<std::string> columns = {"PE-A", "PE-Cy7-A", "APC-A", "FSC-A"};
    const auto markers = columnMarkers(trained, columns);
    EXPECT_EQ(markers, (std::vector<std::string>{"CD33", "CD3", "HLA-DR", ""}));
    // A column named by its marker has that marker.
    EXPECT_EQ(columnMarkers(trained, {"CD3"}), std::vector<std::string>{"CD3"});

    LandmarkModel m;
    m.resize(2, 4);
    m.low = {0.0f, 0.0f, 1.0f, 1.0f};
    m.high = {0, 0, 0, 0, 1, 2, 3, 4};
    const auto doc =
        modelToJson(m, columns, nullptr, EmbedParams{}, {}, {}, {}, {}, nullptr, markers);
    const LoadedModel back = modelFromJson(doc, "memory");
    EXPECT_EQ(back.columnMarkers, markers);
    auto bad = doc;
    bad["column_markers"] = {"CD33", "CD3"};
    EXPECT_THROW(modelFromJson(bad, "m.json"), InputError);
    bad["column_markers"] = {"CD33", 3, "HLA-DR", ""};
    EXPECT_THROW(modelFromJson(bad, "m.json"), InputError);

    // The same panel written otherwise (case, '-', spaces), or a channel without a marker on
    // either side: applied.
    io::Table same;
    same.channels = {{"PE-A", "cd33"}, {"PE-Cy7-A", "CD 3"}, {"APC-A", "HLADR"}, {"FSC-A", "FSC"}};
    EXPECT_NO_THROW(checkPanel(columns, markers, same, "same.fcs"));
    io::Table unnamed;
    unnamed.channels = {{"PE-A", ""}, {"PE-Cy7-A", ""}, {"APC-A", ""}, {"FSC-A", ""}};
    EXPECT_NO_THROW(checkPanel(columns, markers, unnamed, "unnamed.fcs"));
    EXPECT_NO_THROW(checkPanel(columns, {}, same, "an older model"));
    // Isotope tags and fluorochrome words beside the marker name the same antibody.
    io::Table tagged;
    tagged.channels = {
        {"PE-A", "142Nd_CD33"}, {"PE-Cy7-A", "CD3 FITC"}, {"APC-A", "HLA-DR APC"}, {"FSC-A", ""}};
    EXPECT_NO_THROW(checkPanel(columns, markers, tagged, "tagged.fcs"));
    // "17a" of IL-17A is no isotope tag: IL-17A is not IL-21R.
    io::Table cytokine;
    cytokine.channels = {
        {"PE-A", "IL-21R"}, {"PE-Cy7-A", "CD3"}, {"APC-A", "HLA-DR"}, {"FSC-A", ""}};
    trained.channels[0].marker = "IL-17A";
    EXPECT_THROW(checkPanel(columns, columnMarkers(trained, columns), cytokine, "il.fcs"),
                 InputError);
    io::Table near;  // CD45 is not CD4, nor cadmium
    near.channels = {{"PE-A", "CD45"}, {"PE-Cy7-A", "CD3"}, {"APC-A", "HLA-DR"}, {"FSC-A", ""}};
    trained.channels[0].marker = "CD4";
    EXPECT_THROW(checkPanel(columns, columnMarkers(trained, columns), near, "near.fcs"),
                 InputError);
    // Another panel on the same fluorochromes: refused, naming the file and each difference.
    io::Table other;
    other.channels = {{"PE-A", "CD10"}, {"PE-Cy7-A", "CD34"}, {"APC-A", "HLA-DR"}, {"FSC-A", ""}};
    try {
        checkPanel(columns, markers, other, "other.fcs");
        FAIL() << "another panel was applied";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("other.fcs: the panel differs"), std::string::npos) << what;
        EXPECT_NE(what.find("PE-A is CD33 in the model and CD10 here"), std::string::npos) << what;
        EXPECT_NE(what.find("PE-Cy7-A is CD3 in the model and CD34 here"), std::string::npos)
            << what;
        EXPECT_EQ(what.find("APC-A is"), std::string::npos) << what;
    }
}

}  // namespace sepal
