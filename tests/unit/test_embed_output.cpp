#include <gtest/gtest.h>

#include "core/common/error.h"
#include "core/pipeline/embed_output.h"
#include "core/pipeline/prepare.h"

namespace sepal {
namespace {

io::Table smallTable() {
    io::Table t;
    t.source = "small.csv";
    t.channels = {{"FSC-A", "", 0, 32}, {"FL1-A", "CD3", 0, 32}, {"FL2-A", "CD4", 0, 32}};
    t.values = Matrix(4, 3);
    for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 3; ++j) t.values.at(i, j) = static_cast<float>(10 * i + j);
    t.labels.push_back({"population", {"T", "B"}, {0, 1, 1, -1}});
    return t;
}

TEST(EmbedOutput, PictureSpecFollowsTheColourWord) {
    const io::Table t = smallTable();
    const Matrix transformed(4, 1, 7.0f);
    EXPECT_EQ(pictureSpecFor(t, "density", transformed, {"FL1-A"}).colorBy,
              raster::ColorBy::Density);
    const auto byLabel = pictureSpecFor(t, "label", transformed, {"FL1-A"});
    EXPECT_EQ(byLabel.colorBy, raster::ColorBy::Labels);
    EXPECT_EQ(byLabel.codes, t.labels[0].codes);
    // A marker finds its channel; transformed values win when that channel was embedded.
    const auto cd3 = pictureSpecFor(t, "CD3", transformed, {"FL1-A"});
    EXPECT_EQ(cd3.colorBy, raster::ColorBy::Values);
    EXPECT_EQ(cd3.values, std::vector<float>(4, 7.0f));
    const auto cd4 = pictureSpecFor(t, "CD4", transformed, {"FL1-A"});
    EXPECT_EQ(cd4.values[1], 12.0f);  // raw: not among the embedded columns
    EXPECT_THROW(pictureSpecFor(t, "CD19", transformed, {"FL1-A"}), InputError);
    // A label column in another case, as channels are found in any case.
    const auto byName = pictureSpecFor(t, "Population", transformed, {"FL1-A"});
    EXPECT_EQ(byName.colorBy, raster::ColorBy::Labels);
    EXPECT_EQ(byName.title, "population");
    io::Table unlabelled = t;
    unlabelled.labels.clear();
    EXPECT_THROW(pictureSpecFor(unlabelled, "label", transformed, {}), InputError);
}

TEST(EmbedOutput, SizesAreChecked) {
    int w = 0, h = 0;
    parseSize("1200x900", w, h);
    EXPECT_EQ(w, 1200);
    EXPECT_EQ(h, 900);
    parseSize("16384x16", w, h);
    EXPECT_EQ(w, 16384);
    for (const char* bad : {"1200", "x900", "12x900", "axb", "1200x900x3", "16385x900", "99999x16"})
        EXPECT_THROW(parseSize(bad, w, h), InputError) << bad;
}

TEST(Prepare, ColumnsAndTransformWordsBuildThePipeline) {
    const io::Table t = smallTable();
    PrepareOptions o;
    // A table without FCS keywords whose channels carry markers (a CSV export) is cytometry:
    // its markers, on flow's arcsinh scale, and no scatter.
    const TransformPipeline markers = choosePipeline(t, o);
    EXPECT_EQ(markers.columns(), (std::vector<std::string>{"FL1-A", "FL2-A"}));
    EXPECT_EQ(markers.steps[0].transform.kind, ColumnTransform::Kind::Arcsinh);
    EXPECT_EQ(markers.steps[0].transform.cofactor, 150.0);
    // A plain table is used as it is: every channel, no transform.
    io::Table plain = t;
    for (auto& c : plain.channels) c.marker.clear();
    const TransformPipeline all = choosePipeline(plain, o);
    EXPECT_EQ(all.columns(), (std::vector<std::string>{"FSC-A", "FL1-A", "FL2-A"}));
    EXPECT_EQ(all.steps[0].transform.kind, ColumnTransform::Kind::None);
    o.columns = {"CD4", "FSC-A"};
    o.transform = "asinh:150";
    const TransformPipeline chosen = choosePipeline(t, o);
    EXPECT_EQ(chosen.columns(), (std::vector<std::string>{"FL2-A", "FSC-A"}));
    EXPECT_EQ(chosen.steps[0].transform.kind, ColumnTransform::Kind::Arcsinh);
    EXPECT_EQ(chosen.steps[0].transform.cofactor, 150.0);
    o.columns = {"CD19"};
    EXPECT_THROW(choosePipeline(t, o), InputError);
    o.columns = {};
    for (const char* bad : {"asinh:-5", "log", "asinh:", "missing.json"}) {
        o.transform = bad;
        EXPECT_THROW(choosePipeline(t, o), InputError) << bad;
    }
}

}  // namespace
}  // namespace sepal
