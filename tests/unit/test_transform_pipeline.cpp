#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/common/error.h"
#include "core/transform/channel_roles.h"
#include "core/transform/pipeline.h"

namespace sepal {

namespace {
io::Table sampleTable() {
    io::Table t;
    t.channels = {{"Nd142Di", "CD19", 0, 32}, {"Sm149Di", "CD4", 0, 32}, {"Time", "", 0, 32}};
    t.values = Matrix(4, 3);
    t.values.values = {0, 10, 1, 5, 20, 2, 50, 0, 3, 500, 40, 4};
    return t;
}

std::string errorOf(const nlohmann::json& j) {
    try {
        TransformPipeline::fromJson(j);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(TransformPipeline, AppliesPerColumnTransformsInOrder) {
    TransformPipeline p;
    ColumnTransform arcsinh;
    arcsinh.kind = ColumnTransform::Kind::Arcsinh;
    arcsinh.cofactor = 5;
    ColumnTransform linear;
    linear.kind = ColumnTransform::Kind::Linear;
    linear.scale = 2;
    linear.offset = -1;
    p.steps = {ColumnStep{"CD4", arcsinh}, ColumnStep{"Time", linear}, ColumnStep{"nd142di"}};
    p.steps[1].weight = 0.5;
    const Matrix out = p.apply(sampleTable());
    ASSERT_EQ(out.rows, 4u);
    ASSERT_EQ(out.cols, 3u);
    EXPECT_EQ(p.columns(), (std::vector<std::string>{"CD4", "Time", "nd142di"}));
    EXPECT_FLOAT_EQ(out.at(1, 0), static_cast<float>(std::asinh(20.0 / 5)));
    EXPECT_FLOAT_EQ(out.at(3, 1), (4 * 2 - 1) * 0.5f);
    EXPECT_FLOAT_EQ(out.at(2, 2), 50.0f);
}

TEST(TransformPipeline, ZScoreIsFittedOnceAndJsonReproducesOutputExactly) {
    const io::Table t = sampleTable();
    TransformPipeline p = TransformPipeline::defaultFor(t);
    for (auto& s : p.steps) s.zscore = true;
    p.steps[0].weight = 2;
    p.steps[1].transform.kind = ColumnTransform::Kind::Logicle;
    p.fit(t);
    ASSERT_TRUE(p.steps[0].mean && p.steps[0].sd);
    const Matrix out = p.apply(t);
    double sum = 0, squares = 0;
    for (size_t i = 0; i < 4; ++i) sum += out.at(i, 1);
    for (size_t i = 0; i < 4; ++i) squares += out.at(i, 1) * out.at(i, 1);
    EXPECT_NEAR(sum, 0, 1e-5);
    EXPECT_NEAR(squares / 3, 1.0, 1e-5);

    const std::string text = p.toJson().dump();
    const TransformPipeline back = TransformPipeline::fromJson(nlohmann::json::parse(text));
    EXPECT_EQ(back.toJson(), p.toJson());
    EXPECT_EQ(back.apply(t).values, out.values);
    // Stored statistics do not follow new data: a different table keeps the saved scaling.
    io::Table other = t;
    for (float& v : other.values.values) v *= 3;
    const Matrix again = back.apply(other);
    EXPECT_NE(again.values, out.values);
    TransformPipeline refit = back;
    refit.fit(other);
    EXPECT_NE(refit.toJson(), back.toJson());
}

TEST(TransformPipeline, JsonErrorsNameTheField) {
    using nlohmann::json;
    EXPECT_NE(
        errorOf(json{{"columns",
                      {{{"name", "CD3"}, {"transform", {{"kind", "arcsinh"}, {"cofactor", -1}}}}}}})
            .find("columns[0] (\"CD3\").transform.cofactor"),
        std::string::npos);
    EXPECT_NE(errorOf(json{{"columns", {{{"name", "CD3"}, {"transform", {{"kind", "cube"}}}}}}})
                  .find("columns[0].transform.kind"),
              std::string::npos);
    EXPECT_NE(errorOf(json{{"columns",
                            {{{"name", "CD3"}, {"transform", {{"kind", "logicle"}, {"W", 5}}}}}}})
                  .find("parameter W"),
              std::string::npos);
    EXPECT_NE(
        errorOf(json{{"columns", {{{"name", "CD3"}, {"weight", "x"}}}}}).find("columns[0].weight"),
        std::string::npos);
    EXPECT_NE(errorOf(json{{"columns", {"CD3", "CD3"}}}).find("second time"), std::string::npos);
    EXPECT_NE(errorOf(json{{"compensation", {{"source", "guess"}}}, {"columns", json::array()}})
                  .find("compensation.source"),
              std::string::npos);
    EXPECT_NE(errorOf(json::array()).find("JSON object"), std::string::npos);
    EXPECT_NE(errorOf(json{{"version", 2}, {"columns", json::array()}}).find("version"),
              std::string::npos);
}

TEST(TransformPipeline, MissingColumnsAreNamed) {
    TransformPipeline p;
    p.steps = {ColumnStep{"CD4"}, ColumnStep{"CD8"}, ColumnStep{"CD3"}};
    try {
        p.apply(sampleTable());
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no column CD8, CD3"), std::string::npos) << e.what();
    }
}

// FlowJo exports compensated values as "Comp-FITC-A": a pipeline that compensates FITC-A and
// PE-A with the file's matrix takes those columns as they are (compensated once, not twice),
// and refuses a table that mixes them with raw channels its matrix covers.
TEST(TransformPipeline, FlowJosCompensatedColumnsAreNotCompensatedAgain) {
    io::Table raw;
    raw.channels = {{"FITC-A", "CD3", 0, 32}, {"PE-A", "CD4", 0, 32}, {"SSC-A", "", 0, 32}};
    raw.values = Matrix(2, 3);
    raw.values.values = {100, 50, 7, 10, 300, 8};
    io::Spillover spill;
    spill.channels = {"FITC-A", "PE-A"};
    spill.matrix = Matrix(2, 2);
    spill.matrix.values = {1.0f, 0.25f, 0.0f, 1.0f};  // FITC spills a quarter into PE
    raw.spillover = spill;
    TransformPipeline p;
    p.compensation.source = CompensationStep::Source::File;
    p.steps = {ColumnStep{"FITC-A"}, ColumnStep{"PE-A"}, ColumnStep{"SSC-A"}};
    const Matrix fromRaw = p.apply(raw);
    EXPECT_FLOAT_EQ(fromRaw.at(0, 1), 25.0f);  // 50 - 100 / 4

    io::Table flowjo;
    flowjo.source = "flowjo.csv";
    flowjo.channels = {
        {"Comp-FITC-A", "CD3", 0, 32}, {"Comp-PE-A", "CD4", 0, 32}, {"SSC-A", "", 0, 32}};
    flowjo.values = Matrix(2, 3);
    for (size_t r = 0; r < 2; ++r)
        for (size_t c = 0; c < 3; ++c) flowjo.values.at(r, c) = fromRaw.at(r, c);
    const Matrix fromFlowJo = p.apply(flowjo);
    EXPECT_EQ(fromFlowJo.values, fromRaw.values);

    // Compensated FITC beside raw PE under a matrix that covers PE: refused, naming both.
    io::Table mixed = flowjo;
    mixed.channels[1].name = "PE-A";
    mixed.spillover = spill;
    try {
        p.apply(mixed);
        FAIL() << "a table of compensated and raw channels was taken";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("compensated values (Comp-FITC-A)"), std::string::npos) << what;
        EXPECT_NE(what.find("(PE-A)"), std::string::npos) << what;
    }
    // A pipeline without compensation does not take compensated columns for raw ones.
    p.compensation.source = CompensationStep::Source::None;
    EXPECT_THROW(p.apply(flowjo), InputError);
}

// What a table lacks is what apply cannot find: a step named by its marker or in other case is
// there, a compensated "Comp-" column stands for its channel only where the pipeline compensates.
TEST(TransformPipeline, MissingColumnsAreThoseApplyCannotFind) {
    io::Table t;
    t.channels = {{"Comp-FITC-A", "CD3", 0, 32}, {"PE-A", "CD4", 0, 32}, {"SSC-A", "", 0, 32}};
    t.values = Matrix(1, 3, 1.0f);
    TransformPipeline p;
    p.steps = {ColumnStep{"FITC-A"}, ColumnStep{"cd4"}, ColumnStep{"ssc-a"}, ColumnStep{"CD8"}};
    EXPECT_EQ(p.missingColumns(t), (std::vector<std::string>{"FITC-A", "CD8"}));
    p.compensation.source = CompensationStep::Source::File;
    EXPECT_EQ(p.missingColumns(t), (std::vector<std::string>{"CD8"}));
    try {
        p.apply(t);
        FAIL() << "a table without CD8 was transformed";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("has no column CD8 "), std::string::npos) << e.what();
    }
}

TEST(TransformPipeline, DefaultsForMassCytometry) {
    io::Table t;
    t.channels = {
        {"Time", "", 0, 32},        {"Event_length", "", 0, 32}, {"Nd142Di", "CD19", 0, 32},
        {"Sm149Di", "CD4", 0, 32},  {"Gd158Di", "CD8", 0, 32},   {"La139Di", "", 0, 32},
        {"Ir191Di", "DNA1", 0, 32}, {"Pd104Di", "", 0, 32},      {"Population", "", 0, 32}};
    t.values = Matrix(2, t.channels.size(), 1.0f);
    EXPECT_EQ(guessCytometry(t), Cytometry::Mass);
    const TransformPipeline p = TransformPipeline::defaultFor(t);
    EXPECT_EQ(p.columns(), (std::vector<std::string>{"Nd142Di", "Sm149Di", "Gd158Di"}));
    for (const auto& s : p.steps) {
        EXPECT_EQ(s.transform.kind, ColumnTransform::Kind::Arcsinh);
        EXPECT_EQ(s.transform.cofactor, 5.0);
    }
    EXPECT_EQ(p.compensation.source, CompensationStep::Source::None);
}

TEST(TransformPipeline, DefaultsForFluorescence) {
    io::Table t;
    t.channels = {{"FSC-A", "", 262144, 32},    {"SSC-A", "", 262144, 32},
                  {"FL1-A", "CD3", 262144, 32}, {"FL1-H", "CD3", 262144, 32},
                  {"FL2-A", "", 262144, 32},    {"Time", "", 262144, 32}};
    t.values = Matrix(2, t.channels.size(), 100.0f);
    t.spillover = io::Spillover{{"FL1-A", "FL2-A"}, Matrix(2, 2, 0.0f)};
    EXPECT_EQ(guessCytometry(t), Cytometry::Fluorescence);
    const TransformPipeline p = TransformPipeline::defaultFor(t);
    EXPECT_EQ(p.columns(), (std::vector<std::string>{"FL1-A", "FL2-A"}));
    EXPECT_EQ(p.steps[0].transform.cofactor, 150.0);
    EXPECT_EQ(p.compensation.source, CompensationStep::Source::File);
}

TEST(ChannelRoles, RecognisesMassChannelNames) {
    for (const char* name :
         {"Nd142Di", "Sm149Dd", "In115Di", "CD19(Nd142)Di", "(Yb176)", "142Nd_CD19", "Y89Di"})
        EXPECT_TRUE(isMassChannelName(name)) << name;
    for (const char* name : {"CD45", "FL1-A", "Ki67", "FSC-A", "PE-Cy7-A", "Time", "BV421"})
        EXPECT_FALSE(isMassChannelName(name)) << name;
}

}  // namespace sepal
