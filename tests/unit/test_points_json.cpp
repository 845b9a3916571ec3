#include <gtest/gtest.h>

#include <filesystem>

#include "core/common/error.h"
#include "core/io/points_json.h"
#include "test_paths.h"

namespace sepal::io {
namespace {

TEST(PointsJson, ReadsArraysOfPointsAndKeepsAnOrderedCloudAsStored) {
    // x has the largest spread, then y, then z: the stored order already follows the rule.
    const Table t = parsePointsJson("[[0, 0, 0], [10, 5, 1], [20, -5, 2]]", "mem");
    ASSERT_EQ(t.events(), 3u);
    ASSERT_EQ(t.channels.size(), 3u);
    EXPECT_EQ(t.channels[0].name, "x");
    EXPECT_EQ(t.channels[2].name, "z");
    EXPECT_EQ(t.values.at(1, 0), 10.0f);
    EXPECT_TRUE(t.warnings.empty());
}

TEST(PointsJson, AutoOrderPutsTheWidestColumnFirstAndSaysSo) {
    // Stored as (z, x, y): spreads 1, 100, 10.
    const std::string text = "[[0, 0, 0], [1, 100, 10], [2, -100, -10]]";
    const Table t = parsePointsJson(text, "mem");
    EXPECT_EQ(t.values.at(1, 0), 100.0f);
    EXPECT_EQ(t.values.at(1, 1), 10.0f);
    EXPECT_EQ(t.values.at(1, 2), 1.0f);
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_NE(t.warnings[0].find("(z, x, y)"), std::string::npos);
    const Table kept = parsePointsJson(text, "mem", {"file"});
    EXPECT_EQ(kept.values.at(1, 0), 1.0f);
    const Table explicitOrder = parsePointsJson(text, "mem", {"zxy"});
    EXPECT_EQ(explicitOrder.values.at(1, 0), 100.0f);
    EXPECT_EQ(explicitOrder.values.at(1, 2), 1.0f);
    EXPECT_THROW(parsePointsJson(text, "mem", {"xxy"}), InputError);
}

TEST(PointsJson, ObjectsNameTheirColumns) {
    const Table t = parsePointsJson(R"([{"a": 1, "b": 2}, {"b": 4, "a": 3}])", "mem");
    ASSERT_EQ(t.channels.size(), 2u);
    EXPECT_EQ(t.channels[0].name, "a");
    EXPECT_EQ(t.values.at(1, 0), 3.0f);
    EXPECT_EQ(t.values.at(1, 1), 4.0f);
}

TEST(PointsJson, BadInputSaysWhereAndWhat) {
    try {
        parsePointsJson("[[1, 2],\n [3, ]]", "bad.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
    try {
        parsePointsJson("[[1, 2], [3]]", "ragged.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("point 1"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parsePointsJson("[[1, \"a\"]]", "m"), InputError);
    EXPECT_THROW(parsePointsJson("{}", "m"), InputError);
    EXPECT_THROW(parsePointsJson("[[1, 1e300]]", "m"), InputError);
    // Beyond double's range the JSON parser itself refuses (found by the fuzzer).
    EXPECT_THROW(parsePointsJson("[[1, 31.7E9997]]", "m"), InputError);
    EXPECT_THROW(parsePointsJson("[]", "m"), InputError);
    EXPECT_THROW(parsePointsJson("[5]", "m"), InputError);
    EXPECT_THROW(readPointsJson("/nonexistent/points.json"), InputError);
}

TEST(PointsJson, BothMammothFilesComeOutAsXYZ) {
    const auto dir = test::sharedDataDir() / "shapes";
    if (!std::filesystem::exists(dir / "mammoth_3d_50k.json"))
        GTEST_SKIP() << test::sharedDataMissing(dir);
    const Table small = readPointsJson((dir / "mammoth_3d.json").string());
    const Table large = readPointsJson((dir / "mammoth_3d_50k.json").string());
    EXPECT_EQ(small.events(), 10000u);
    EXPECT_EQ(large.events(), 50000u);
    EXPECT_TRUE(small.warnings.empty());
    EXPECT_EQ(large.warnings.size(), 1u);
    // Same shape, same frame: each axis covers the same range in both files.
    for (size_t j = 0; j < 3; ++j) {
        float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
        const Table* tables[2] = {&small, &large};
        for (int f = 0; f < 2; ++f)
            for (size_t i = 0; i < tables[f]->events(); ++i) {
                lo[f] = std::min(lo[f], tables[f]->values.at(i, j));
                hi[f] = std::max(hi[f], tables[f]->values.at(i, j));
            }
        EXPECT_NEAR(lo[0], lo[1], 2.0f) << "axis " << j;
        EXPECT_NEAR(hi[0], hi[1], 2.0f) << "axis " << j;
    }
}

}  // namespace
}  // namespace sepal::io
