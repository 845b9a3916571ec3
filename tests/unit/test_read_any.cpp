#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/io/population_labels.h"
#include "core/io/read_any.h"

namespace sepal {

namespace {
std::filesystem::path scratch(const std::string& name, const std::string& bytes) {
    const auto dir = std::filesystem::temp_directory_path() / "sepal_read_any_test";
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}
}  // namespace

TEST(ReadAny, ReadsTextByContentAndRefusesBinary) {
    const auto tsv = scratch("cells.dat", "a\tb\n1\t2\n");
    const io::Table t = io::readTable(tsv.string());
    EXPECT_EQ(t.channels.size(), 2u);
    EXPECT_EQ(t.events(), 1u);
    const auto binary = scratch("cells.bin", std::string("\x01\x02\0\x03", 4));
    try {
        io::readTable(binary.string());
        FAIL() << "expected an error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("not an FCS file"), std::string::npos) << e.what();
    }
    EXPECT_THROW(io::readTable("/nonexistent/cells.csv"), InputError);
    std::filesystem::remove_all(tsv.parent_path());
}

TEST(PopulationLabels, CodesBecomeLabels) {
    io::Table t;
    t.channels = {{"CD3", "", 0, 32}, {"Population", "", 0, 32}};
    t.values = Matrix(4, 2);
    t.values.values = {1, 0, 2, 2, 3, NAN, 4, 7};
    t.keywords = {{io::kPopulationsKeyword, io::populationKeywordValue({"T", "B", "NK"})}};
    ASSERT_TRUE(io::recoverPopulationLabels(t));
    ASSERT_EQ(t.channels.size(), 1u);
    EXPECT_EQ(t.values.values, (std::vector<float>{1, 2, 3, 4}));
    ASSERT_EQ(t.labels.size(), 1u);
    EXPECT_EQ(t.labels[0].categories, (std::vector<std::string>{"T", "B", "NK"}));
    EXPECT_EQ(t.labels[0].codes, (std::vector<int32_t>{0, 2, -1, -1}));

    // Encoding for FCS and recovering give the same labels back.
    const io::LabelColumn original = t.labels[0];
    io::encodePopulationLabels(t, 0);
    EXPECT_TRUE(t.labels.empty());
    ASSERT_EQ(t.channels.size(), 2u);
    EXPECT_EQ(t.values.at(3, 1), -1.0f);
    ASSERT_TRUE(io::recoverPopulationLabels(t));
    EXPECT_EQ(t.labels[0].categories, original.categories);
    EXPECT_EQ(t.labels[0].codes, original.codes);

    io::Table bad;
    bad.channels = {{"Population", "", 0, 32}};
    bad.values = Matrix(1, 1, 0.0f);
    bad.keywords = {{io::kPopulationsKeyword, "zero;1:B"}};
    EXPECT_FALSE(io::recoverPopulationLabels(bad));
    EXPECT_EQ(bad.warnings.size(), 1u);
}

}  // namespace sepal
