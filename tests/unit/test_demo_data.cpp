#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/demo/demo_data.h"
#include "core/io/read_any.h"
#include "core/transform/pipeline.h"
#include "test_paths.h"

namespace sepal {

TEST(DemoData, IsDeterministicForASeed) {
    const io::Table a = demo::makeDemoTable(5000, 7);
    const io::Table b = demo::makeDemoTable(5000, 7);
    const io::Table c = demo::makeDemoTable(5000, 8);
    EXPECT_EQ(a.values.values, b.values.values);
    EXPECT_NE(a.values.values, c.values.values);
    EXPECT_EQ(a.channels.size(), 25u);
    // Mass cytometry counts: skewed, non-negative, with many zeros for negative markers.
    const auto& v = a.values.values;
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0.0f);
    EXPECT_GT(std::count(v.begin(), v.end(), 0.0f), static_cast<long>(v.size() / 10));
}

TEST(DemoData, CommittedFileHoldsTheGeneratedPopulations) {
    const auto path = test::sourceDir() / "data" / "demo.fcs";
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    const io::Table t = io::readTable(path.string());
    ASSERT_EQ(t.labels.size(), 1u);
    const io::LabelColumn& population = t.labels[0];
    EXPECT_EQ(population.name, "Population");
    ASSERT_EQ(population.categories.size(), 15u);
    EXPECT_EQ(population.categories.front(), "Naive CD4 T");
    EXPECT_EQ(t.events(), 100000u);
    EXPECT_EQ(t.channels.size(), 24u);
    // The file is what the generator makes with its defaults (float32 round-trips exactly).
    const io::Table fresh = demo::makeDemoTable();
    for (size_t i = 0; i < t.events(); i += 997)
        for (size_t j = 0; j < t.channels.size(); ++j)
            ASSERT_EQ(t.values.at(i, j), fresh.values.at(i, j)) << i << "," << j;
    // Every population is present; the rare one is about half a percent.
    std::vector<size_t> counts(population.categories.size(), 0);
    for (int32_t code : population.codes) {
        ASSERT_GE(code, 0);
        ++counts[static_cast<size_t>(code)];
    }
    for (size_t count : counts) EXPECT_GT(count, 300u);
    const auto rare =
        std::find(population.categories.begin(), population.categories.end(), "Plasmacytoid DC");
    ASSERT_NE(rare, population.categories.end());
    const size_t rareCount = counts[static_cast<size_t>(rare - population.categories.begin())];
    EXPECT_GT(rareCount, 300u);
    EXPECT_LT(rareCount, 800u);
    // The default pipeline recognises mass cytometry and keeps only the 22 markers.
    const TransformPipeline p = TransformPipeline::defaultFor(t);
    EXPECT_EQ(p.steps.size(), 22u);
    EXPECT_EQ(p.steps.front().transform.cofactor, 5.0);
}

}  // namespace sepal
