// Spillover matrices from files: the layouts instruments and analysis tools export.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "core/io/spillover_file.h"
#include "core/pipeline/prepare.h"
#include "core/transform/pipeline.h"
#include "test_paths.h"

using namespace sepal;

TEST(SpilloverFile, HeaderThenRows) {
    auto sp = io::parseSpillover("FL1-A,FL2-A\n1,0.25\n0.1,1\n", "m.csv");
    ASSERT_EQ(sp.channels, (std::vector<std::string>{"FL1-A", "FL2-A"}));
    EXPECT_FLOAT_EQ(sp.matrix.at(0, 1), 0.25f);
    EXPECT_FLOAT_EQ(sp.matrix.at(1, 0), 0.1f);
}

TEST(SpilloverFile, RowNamesHashHeaderTabsAndCarriageReturns) {
    auto a = io::parseSpillover("\"\",\"FL1-A\",\"FL2-A\"\r\nFL1-A,1,0.5\r\nFL2-A,0,1\r\n", "a");
    EXPECT_EQ(a.channels.size(), 2u);
    EXPECT_FLOAT_EQ(a.matrix.at(0, 1), 0.5f);
    auto b = io::parseSpillover("# FL1-A\tFL2-A\r1\t0\r0.3\t1\r", "b");
    EXPECT_EQ(b.channels.front(), "FL1-A");
    EXPECT_FLOAT_EQ(b.matrix.at(1, 0), 0.3f);
}

TEST(SpilloverFile, KeywordForm) {
    auto sp = io::parseSpillover("2,FL1-A,FL2-A,1,0.2,0,1\n", "k.txt");
    EXPECT_EQ(sp.channels.back(), "FL2-A");
    EXPECT_FLOAT_EQ(sp.matrix.at(0, 1), 0.2f);
}

TEST(SpilloverFile, BadMatricesSayWhere) {
    auto message = [](const std::string& text) {
        try {
            io::parseSpillover(text, "bad.csv");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("").find("empty"), std::string::npos);
    EXPECT_NE(message("A,B\n1,0\n").find("only 1 rows"), std::string::npos);
    EXPECT_NE(message("A,B\n1,x\n0,1\n").find("row 2, column 2"), std::string::npos);
    EXPECT_NE(message("A,B\n1,0,3\n0,1\n").find("row 2 has 3 values"), std::string::npos);
    EXPECT_NE(message("x,A,B\n").find("not a channel count"), std::string::npos);
    EXPECT_NE(message("3,A,B\n").find("need 13 values"), std::string::npos);
    EXPECT_EQ(message("A,B\n1,0\n0,1\n1,1\n").find("accepted"), std::string::npos);
}

// A matrix exported from an analysis tool, loaded for the file it belongs to (whose own SPILL
// keyword is the identity): compensated values times the matrix give back the raw values, so the
// matrix is read with its rows and columns the right way round and applied to the named channels.
TEST(SpilloverFile, RealExportedMatrixCompensatesItsFile) {
    const auto dir = sepal::test::sharedDataDir() / "fcs" / "flowkit";
    if (!std::filesystem::exists(dir / "test_comp_example.fcs"))
        GTEST_SKIP() << sepal::test::sharedDataMissing(dir / "test_comp_example.fcs");
    const std::string csv = (dir / "comp_complete_example.csv").string();
    const io::Spillover sp = io::readSpilloverFile(csv);
    ASSERT_EQ(sp.channels.size(), 14u);
    EXPECT_EQ(sp.channels.front(), "Ax488-A");
    EXPECT_FLOAT_EQ(sp.matrix.at(0, 1), 0.2986f);
    const io::Table table = io::readFcs((dir / "test_comp_example.fcs").string());
    TransformPipeline pipeline;
    for (const auto& name : sp.channels) pipeline.steps.push_back(ColumnStep{name});
    useSpilloverFile(pipeline, csv);
    const Matrix compensated = pipeline.apply(table);
    const size_t m = sp.channels.size();
    double worst = 0, changed = 0;
    for (size_t e = 0; e < table.events(); e += 97) {
        for (size_t j = 0; j < m; ++j) {
            double back = 0;
            for (size_t i = 0; i < m; ++i)
                back += double(compensated.at(e, i)) * sp.matrix.at(i, j);
            const double raw = table.values.at(e, size_t(table.findChannel(sp.channels[j])));
            worst = std::max(worst, std::abs(back - raw) / (1.0 + std::abs(raw)));
            changed = std::max(changed, std::abs(double(compensated.at(e, j)) - raw));
        }
    }
    EXPECT_LT(worst, 1e-4);   // compensated x S = raw
    EXPECT_GT(changed, 1.0);  // and the matrix did change values
}
