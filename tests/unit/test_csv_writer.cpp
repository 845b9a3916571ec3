#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "core/common/error.h"
#include "core/io/csv_reader.h"
#include "core/io/csv_writer.h"
#include "core/io/spillover_file.h"

namespace sepal {

namespace {
std::filesystem::path scratchDir() {
    auto dir =
        std::filesystem::temp_directory_path() /
        ("sepal_csv_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    return dir;
}

bool sameBits(float a, float b) {
    uint32_t x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    return x == y || (std::isnan(a) && std::isnan(b));
}
}  // namespace

TEST(CsvWriter, RoundTripsValuesNamesAndLabelsExactly) {
    io::Table t;
    t.channels = {{"EmbedSOM1", "", 0, 32}, {"CD4, area", "", 0, 32}, {"say \"x\"", "", 0, 32}};
    const size_t rows = 20000;  // more than one formatting block
    t.values = Matrix(rows, 3);
    for (size_t i = 0; i < rows; ++i) {
        t.values.at(i, 0) = static_cast<float>(std::sin(static_cast<double>(i)) * 1e3);
        t.values.at(i, 1) = static_cast<float>(i) * 1.0e-7f - 3.0f;
        t.values.at(i, 2) = static_cast<float>(std::exp(static_cast<double>(i % 80) - 40.0));
    }
    t.values.at(3, 0) = std::numeric_limits<float>::quiet_NaN();
    t.values.at(4, 0) = std::numeric_limits<float>::infinity();
    t.values.at(5, 0) = -std::numeric_limits<float>::infinity();
    t.values.at(6, 0) = std::numeric_limits<float>::denorm_min();
    t.values.at(7, 0) = std::numeric_limits<float>::max();
    io::LabelColumn population{"population", {"T cells", "B, naive", "two\nlines", " padded "}, {}};
    io::LabelColumn sample{"sample", {"s1", "s2"}, {}};
    for (size_t i = 0; i < rows; ++i) {
        population.codes.push_back(i % 5 == 4 ? -1 : static_cast<int32_t>(i % 5));
        sample.codes.push_back(static_cast<int32_t>(i % 2));
    }
    t.labels = {population, sample};

    const auto path = (scratchDir() / "out.csv").string();
    io::writeCsv(path, t);
    const io::Table back = io::readCsv(path);
    ASSERT_EQ(back.channels.size(), 3u);
    for (size_t c = 0; c < 3; ++c) EXPECT_EQ(back.channels[c].name, t.channels[c].name);
    ASSERT_EQ(back.events(), rows);
    for (size_t k = 0; k < t.values.values.size(); ++k)
        ASSERT_TRUE(sameBits(back.values.values[k], t.values.values[k])) << k;
    ASSERT_EQ(back.labels.size(), 2u);
    EXPECT_EQ(back.labels[0].name, "population");
    EXPECT_EQ(back.labels[0].categories, population.categories);
    EXPECT_EQ(back.labels[0].codes, population.codes);
    EXPECT_EQ(back.labels[1].codes, sample.codes);
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(CsvWriter, LabelOnlyRowsWithMissingValuesSurvive) {
    io::Table t;
    t.values = Matrix(3, 0);
    t.labels = {io::LabelColumn{"cluster", {"a", "b"}, {0, -1, 1}}};
    const auto path = (scratchDir() / "labels.csv").string();
    io::writeCsv(path, t);
    const io::Table back = io::readCsv(path);
    ASSERT_EQ(back.labels.size(), 1u);
    EXPECT_EQ(back.labels[0].codes, (std::vector<int32_t>{0, -1, 1}));
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(CsvWriter, FailsCleanlyAndLeavesNoFile) {
    io::Table t;
    t.channels = {{"x", "", 0, 32}};
    t.values = Matrix(1, 1, 2.0f);
    EXPECT_THROW(io::writeCsv("/proc/sepal-unwritable/out.csv", t), InputError);
    const auto dir = scratchDir();
    t.labels = {io::LabelColumn{"bad", {"a"}, {0, 0}}};
    EXPECT_THROW(io::writeCsv((dir / "bad.csv").string(), t), InputError);
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    std::filesystem::remove_all(dir);
}

// CSV has no keywords: a table of uncompensated values leaves its matrix beside it, and reading
// the table takes it back, so that a model that compensates with "the file's matrix" applies to
// the CSV export of its file. A table written again without one loses the old matrix.
TEST(CsvWriter, AnUncompensatedTableKeepsItsMatrixBesideIt) {
    const auto dir = scratchDir();
    const std::string path = (dir / "cells.csv").string();
    io::Table t;
    t.channels = {{"FITC-A", "CD3", 0, 32}, {"PE-A", "CD4", 0, 32}};
    t.values = Matrix(2, 2);
    t.values.values = {100.0f, 20.0f, 3.5f, 800.25f};
    io::Spillover s;
    s.channels = {"PE-A", "FITC-A"};  // another order than the columns'
    s.matrix = Matrix(2, 2);
    s.matrix.values = {1.0f, 0.0123456789f, 0.18394111f, 1.0f};
    t.spillover = s;
    io::writeCsv(path, t);
    EXPECT_EQ(io::spilloverBeside(path), (dir / "cells.spillover.csv").string());
    ASSERT_TRUE(std::filesystem::exists(dir / "cells.spillover.csv"));
    const io::Table back = io::readCsv(path);
    ASSERT_TRUE(back.spillover.has_value());
    EXPECT_EQ(back.spillover->channels, s.channels);
    ASSERT_EQ(back.spillover->matrix.values.size(), 4u);
    for (size_t i = 0; i < 4; ++i)
        EXPECT_TRUE(sameBits(back.spillover->matrix.values[i], s.matrix.values[i])) << i;

    t.spillover.reset();
    io::writeCsv(path, t);
    EXPECT_FALSE(std::filesystem::exists(dir / "cells.spillover.csv"));
    EXPECT_FALSE(io::readCsv(path).spillover.has_value());

    // A file beside that is no matrix is an error that names it.
    { std::ofstream(dir / "cells.spillover.csv") << "FITC-A,PE-A\n1,x\n0,1\n"; }
    try {
        io::readCsv(path);
        FAIL() << "a malformed matrix beside the table was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cells.spillover.csv"), std::string::npos) << e.what();
    }
    // A matrix that cannot be written leaves neither file.
    s.channels = {"PE,A", "FITC-A"};
    t.spillover = s;
    EXPECT_THROW(io::writeCsv((dir / "other.csv").string(), t), InputError);
    EXPECT_FALSE(std::filesystem::exists(dir / "other.csv"));
    EXPECT_FALSE(std::filesystem::exists(dir / "other.spillover.csv"));
    std::filesystem::remove_all(dir);
}

}  // namespace sepal
