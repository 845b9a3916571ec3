// FCS files we write read back equal: values, channels, spillover and the original keywords.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "core/io/fcs_writer.h"
#include "core/io/read_any.h"
#include "fcs_builder.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

fs::path tempPath(const std::string& name) {
    return fs::temp_directory_path() / ("sepal_writer_" + std::to_string(::getpid()) + "_" + name);
}

io::Table sampleTable() {
    io::Table t;
    t.channels = {
        {"FSC-A", "", 262144, 32}, {"FL1-A", "CD3/CD28", 262144, 32}, {"Time", "", 0, 32}};
    t.values = Matrix(4, 3);
    for (size_t i = 0; i < t.values.values.size(); ++i)
        t.values.values[i] = static_cast<float>(i) * 1.25f - 3.0f;
    t.keywords = {{"$BYTEORD", "4,3,2,1"}, {"$DATATYPE", "I"}, {"$CYT", "Sepal test|cytometer"},
                  {"$P1N", "FSC-A"},       {"$P1V", "450"},    {"$P2N", "FL1-A"},
                  {"$P2V", "510"},         {"$P2E", "4,0"},    {"$TIMESTEP", "0.01"},
                  {"EMPTY", ""},           {"SPILL", "old"}};
    io::Spillover s;
    s.channels = {"FSC-A", "FL1-A"};
    s.matrix = Matrix(2, 2);
    s.matrix.values = {1.0f, 0.125f, 0.03f, 1.0f};
    t.spillover = s;
    return t;
}

TEST(FcsWriter, WrittenFilesReadBackEqual) {
    const io::Table t = sampleTable();
    const fs::path path = tempPath("roundtrip.fcs");
    io::writeFcs(path.string(), t);
    const io::Table back = io::readFcs(path.string());
    EXPECT_TRUE(back.warnings.empty()) << back.warnings[0];
    EXPECT_EQ(back.values.rows, t.values.rows);
    EXPECT_EQ(back.values.values, t.values.values);
    ASSERT_EQ(back.channels.size(), t.channels.size());
    for (size_t c = 0; c < t.channels.size(); ++c) {
        EXPECT_EQ(back.channels[c].name, t.channels[c].name);
        EXPECT_EQ(back.channels[c].marker, t.channels[c].marker);
        EXPECT_EQ(back.channels[c].bits, 32);
        EXPECT_GT(back.channels[c].range, 0);
    }
    EXPECT_DOUBLE_EQ(back.channels[0].range, 262144);
    ASSERT_TRUE(back.spillover.has_value());
    EXPECT_EQ(back.spillover->channels, t.spillover->channels);
    EXPECT_EQ(back.spillover->matrix.values, t.spillover->matrix.values);
    EXPECT_EQ(*back.keyword("$CYT"), "Sepal test|cytometer");
    EXPECT_EQ(*back.keyword("$P2V"), "510");
    EXPECT_EQ(*back.keyword("$BYTEORD"), "1,2,3,4");
    EXPECT_EQ(*back.keyword("$DATATYPE"), "F");
    EXPECT_EQ(*back.keyword("$P2E"), "0,0");
    EXPECT_EQ(back.keyword("$TIMESTEP"), nullptr);  // values are already in time units
    ASSERT_NE(back.keyword("SPILL"), nullptr);      // rewritten: the input used BD's keyword
    EXPECT_EQ(*back.keyword("SPILL"), *back.keyword("$SPILLOVER"));
    const io::FcsFileInfo info = io::inspectFcs(path.string());
    EXPECT_EQ(info.datasets[0].version, "FCS3.1");
    fs::remove(path);
}

TEST(FcsWriter, AddedColumnsAndReorderedChannelsKeepTheirKeywords) {
    io::Table t = sampleTable();
    // Keep FL1-A only, then add an embedding and a population code, as the application does.
    io::Table out;
    out.keywords = t.keywords;
    out.channels = {t.channels[1],
                    {"EmbedSOM1", "", 0, 32},
                    {"EmbedSOM2", "", 0, 32},
                    {"population", "", 0, 32}};
    out.values = Matrix(4, 4);
    for (size_t r = 0; r < 4; ++r) {
        out.values.at(r, 0) = t.values.at(r, 1);
        out.values.at(r, 1) = 0.5f * static_cast<float>(r);
        out.values.at(r, 2) = -7.75f;
        out.values.at(r, 3) = static_cast<float>(r % 2);
    }
    const fs::path path = tempPath("added.fcs");
    io::writeFcs(path.string(), out);
    const io::Table back = io::readFcs(path.string());
    EXPECT_EQ(back.values.values, out.values.values);
    EXPECT_EQ(back.channels[1].name, "EmbedSOM1");
    EXPECT_DOUBLE_EQ(back.channels[2].range, 8);  // ceil(max |value|) when unknown
    EXPECT_EQ(*back.keyword("$P1V"), "510");      // FL1-A's voltage follows it to $P1
    EXPECT_EQ(back.keyword("$P2V"), nullptr);
    fs::remove(path);
}

TEST(FcsWriter, ReadLinearWriteReadIsStable) {
    test::FcsBuilder b;
    b.version = "FCS2.0";
    b.kw("$BYTEORD", "4,3,2,1").kw("$DATATYPE", "I").kw("$MODE", "L").kw("$TOT", "3");
    b.params({"FSC-H", "FL1-H"}, {16, 16}, {"1024", "1024"}).kw("$P2E", "4,0").kw("$P1G", "2");
    for (uint64_t v : {100u, 0u, 512u, 256u, 1023u, 1000u}) test::putInt(b.data, v, 2, false);
    const io::Table first = io::readFcsBytes(test::bytesOf(b.build()), "in.fcs");
    const fs::path path = tempPath("stable.fcs");
    io::writeFcs(path.string(), first);
    const io::Table back = io::readFcs(path.string());
    EXPECT_EQ(back.values.values, first.values.values);
    EXPECT_FLOAT_EQ(back.values.at(0, 0), 50.0f);
    fs::remove(path);
}

TEST(FcsWriter, WritesEmptyTablesAndRefusesInconsistentOnes) {
    io::Table t;
    t.channels = {{"A", "", 0, 32}};
    t.values = Matrix(0, 1);
    const fs::path path = tempPath("empty.fcs");
    io::writeFcs(path.string(), t);
    EXPECT_EQ(io::readFcs(path.string()).events(), 0u);
    fs::remove(path);
    t.values = Matrix(2, 2);
    EXPECT_THROW(io::writeFcs(path.string(), t), InputError);
    EXPECT_FALSE(fs::exists(path));
    EXPECT_THROW(io::writeFcs("/proc/sepal-unwritable/x.fcs", sampleTable()), InputError);
}

TEST(FcsWriter, ALabelColumnBecomesAPopulationCodeThatReadsBackAsLabels) {
    io::Table t = sampleTable();
    io::LabelColumn pops;
    pops.name = "population";
    pops.categories = {"T cells", "B cells"};
    pops.codes = {0, 1, -1, 1};
    t.labels.push_back(pops);
    t.keywords.push_back({"SEPAL_POPULATIONS", "0:stale"});
    const fs::path path = tempPath("labels.fcs");
    io::writeFcs(path.string(), t);
    const io::Table raw = io::readFcs(path.string());
    ASSERT_EQ(raw.channels.size(), 4u);
    EXPECT_EQ(raw.channels[3].name, "population");
    // Codes from 1, 0 for events without a label: FlowJo gates see non-negative values.
    EXPECT_EQ(raw.values.at(0, 3), 1.0f);
    EXPECT_EQ(raw.values.at(2, 3), 0.0f);
    EXPECT_EQ(*raw.keyword("SEPAL_POPULATIONS"), "1:T cells;2:B cells");
    const io::Table back = io::readTable(path.string());
    ASSERT_EQ(back.labels.size(), 1u);
    EXPECT_EQ(back.labels[0].name, "population");
    EXPECT_EQ(back.labels[0].categories, pops.categories);
    EXPECT_EQ(back.labels[0].codes, pops.codes);
    EXPECT_EQ(back.values.values, t.values.values);
    fs::remove(path);
}

TEST(FcsWriter, EveryLabelColumnKeepsItsNames) {
    io::Table t = sampleTable();
    t.labels.push_back({"population", {"T cells", "B cells"}, {1, -1, 0, 1}});
    t.labels.push_back({"sample", {"day 0", "day 7"}, {0, 0, 1, 1}});
    t.keywords.push_back({"SEPAL_LABEL2", "0:stale"});
    const fs::path path = tempPath("two_labels.fcs");
    io::writeFcs(path.string(), t);
    const io::Table raw = io::readFcs(path.string());
    ASSERT_EQ(raw.channels.size(), 5u);
    EXPECT_EQ(raw.channels[4].name, "sample");
    EXPECT_EQ(raw.values.at(2, 4), 2.0f);
    EXPECT_EQ(*raw.keyword("SEPAL_LABEL2"), "1:day 0;2:day 7");
    EXPECT_EQ(*raw.keyword("SEPAL_LABEL2_PARAMETER"), "sample");
    EXPECT_EQ(*raw.keyword("$P5R"), "3");
    const io::Table back = io::readTable(path.string());
    ASSERT_EQ(back.labels.size(), 2u);
    EXPECT_EQ(back.labels[0].categories, t.labels[0].categories);
    EXPECT_EQ(back.labels[0].codes, t.labels[0].codes);
    EXPECT_EQ(back.labels[1].name, "sample");
    EXPECT_EQ(back.labels[1].categories, t.labels[1].categories);
    EXPECT_EQ(back.labels[1].codes, t.labels[1].codes);
    EXPECT_EQ(back.values.values, t.values.values);
    fs::remove(path);
}

std::string writtenBytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Rows first .. first + count - 1 of `t`, with its columns and keywords.
io::Table rowsOf(const io::Table& t, size_t first, size_t count) {
    io::Table part = t;
    part.values = Matrix(count, t.values.cols);
    std::copy_n(t.values.row(first), count * t.values.cols, part.values.row(0));
    return part;
}

TEST(FcsWriter, StreamedBlocksWriteTheWholeFilesBytes) {
    // A channel without a range takes $PnR from its values: the blocks' largest magnitudes grow
    // by orders of magnitude, so the TEXT written last is longer than the first block's.
    io::Table whole = sampleTable();
    whole.values = Matrix(700, 3);
    for (size_t i = 0; i < whole.values.rows; ++i)
        for (size_t c = 0; c < 3; ++c)
            whole.values.at(i, c) = std::pow(10.0f, float(i % 9)) * float(c + 1) - float(i);
    const fs::path streamed = tempPath("streamed.fcs"), direct = tempPath("direct.fcs");
    io::writeFcs(direct.string(), whole);
    {
        io::FcsStreamWriter writer(streamed.string());
        for (size_t first = 0, size = 1; first < whole.values.rows; first += size, size *= 3)
            writer.append(rowsOf(whole, first, std::min(size, whole.values.rows - first)));
        writer.commit();
    }
    EXPECT_EQ(writtenBytes(streamed), writtenBytes(direct));
    EXPECT_EQ(io::readFcs(streamed.string()).values.values, whole.values.values);

    // A final layout whose keywords take more room than the first block's (a longer value that
    // is no number): the DATA moves after them, and the bytes are still writeFcs's.
    io::Table layout = rowsOf(whole, 0, 0);
    for (auto& [key, value] : layout.keywords)
        if (key == "$CYT") value = std::string(300, 'x');
    io::Table relabelled = whole;
    relabelled.keywords = layout.keywords;
    io::writeFcs(direct.string(), relabelled);
    {
        io::FcsStreamWriter writer(streamed.string());
        writer.append(rowsOf(whole, 0, 5));
        writer.append(rowsOf(whole, 5, whole.values.rows - 5));
        writer.commit(&layout);
    }
    EXPECT_EQ(writtenBytes(streamed), writtenBytes(direct));
    // No temporary is left beside them.
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(streamed.parent_path()))
        files += e.path().filename().string().rfind(streamed.filename().string(), 0) == 0;
    EXPECT_EQ(files, 1u);
    fs::remove(streamed);
    fs::remove(direct);
}

}  // namespace
}  // namespace sepal
