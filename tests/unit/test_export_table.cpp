// The table an export writes: which channels, which values, which names, which labels.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/pipeline/export_files.h"
#include "core/pipeline/export_table.h"

namespace sepal {
namespace {

io::Table massTable(const std::string& source, size_t events, float offset) {
    io::Table t;
    t.source = source;
    t.channels = {{"Time", "", 0, 32}, {"(Sm154)Di", "CD3", 16384, 32}, {"Nd142Di", "CD4", 0, 32}};
    t.values = Matrix(events, 3);
    for (size_t i = 0; i < events; ++i)
        for (size_t j = 0; j < 3; ++j) t.values.at(i, j) = offset + static_cast<float>(10 * i + j);
    t.keywords = {{"$P2N", "(Sm154)Di"}, {"$P2V", "500"}, {"$CYT", "CyTOF"}};
    io::Spillover s;
    s.channels = {"(Sm154)Di", "Nd142Di"};
    s.matrix = Matrix(2, 2);
    s.matrix.values = {1.0f, 0.02f, 0.03f, 1.0f};
    t.spillover = s;
    return t;
}

Matrix coordinates(size_t events) {
    Matrix xy(events, 2);
    for (size_t i = 0; i < events; ++i) xy.at(i, 0) = -4.5f + i, xy.at(i, 1) = 2.25f * i;
    return xy;
}

TEST(ExportTable, CsvHoldsEveryChannelRawOrTransformedWithNamedPopulations) {
    const io::Table t = massTable("a.fcs", 3, 0);
    const Matrix xy = coordinates(3);
    const Matrix transformed(3, 1, 0.75f);  // what EmbedSOM saw of CD3
    const PopulationCodes pops{"population", {"T cells", "B cells"}, {1, -1, 0}};
    ExportSource source;
    source.tables = std::span<const io::Table>(&t, 1);
    source.xy = &xy;
    source.usedColumns = {"CD3"};  // a marker names its channel
    source.transformed = &transformed;
    source.populations = &pops;

    const io::Table raw = buildExportTable(source, {}, ExportFormat::Csv);
    std::vector<std::string> names;
    for (const auto& c : raw.channels) names.push_back(c.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Time", "CD3 (Sm154Di)", "CD4 (Nd142Di)",
                                               "EmbedSOM1", "EmbedSOM2"}));
    EXPECT_EQ(raw.values.at(2, 1), 21.0f);
    EXPECT_EQ(raw.values.at(2, 3), -2.5f);
    EXPECT_EQ(raw.values.at(2, 4), 4.5f);
    ASSERT_EQ(raw.labels.size(), 1u);
    EXPECT_EQ(raw.labels[0].name, "population");
    EXPECT_EQ(raw.labels[0].categories, pops.names);
    EXPECT_EQ(raw.labels[0].codes, pops.codes);

    ExportOptions options;
    options.values = ExportValues::Transformed;
    const io::Table mixed = buildExportTable(source, options, ExportFormat::Csv);
    EXPECT_EQ(mixed.values.at(2, 1), 0.75f);  // embedded: transformed
    EXPECT_EQ(mixed.values.at(2, 2), 22.0f);  // not embedded: raw
    options.allChannels = false;
    const io::Table used = buildExportTable(source, options, ExportFormat::Csv);
    ASSERT_EQ(used.channels.size(), 3u);
    EXPECT_EQ(used.channels[0].name, "CD3 (Sm154Di)");
    EXPECT_EQ(used.values.at(1, 0), 0.75f);
    // Transformed values are compensated: the table keeps no matrix that would compensate them
    // again when read back (the CSV's matrix beside it).
    EXPECT_FALSE(used.spillover.has_value());
    EXPECT_FALSE(mixed.spillover.has_value());
    // Raw values keep the matrix of the channels written.
    options.values = ExportValues::Raw;
    const io::Table usedRaw = buildExportTable(source, options, ExportFormat::Csv);
    ASSERT_TRUE(usedRaw.spillover.has_value());
    EXPECT_EQ(usedRaw.spillover->channels, std::vector<std::string>{"(Sm154)Di"});
    EXPECT_EQ(usedRaw.spillover->matrix.values, std::vector<float>{1.0f});
    options.values = ExportValues::Transformed;

    // FCS never takes the transformed values, and keeps $PnN and $PnS apart.
    const io::Table fcs = buildExportTable(source, options, ExportFormat::Fcs);
    EXPECT_EQ(fcs.values.at(1, 0), 11.0f);
    EXPECT_EQ(fcs.channels[0].name, "(Sm154)Di");
    EXPECT_EQ(fcs.channels[0].marker, "CD3");
    EXPECT_EQ(fcs.channels[1].marker, "EmbedSOM 1");
    EXPECT_EQ(fcs.channels[2].marker, "EmbedSOM 2");
    EXPECT_DOUBLE_EQ(fcs.channels[2].range, 6.0);  // ceil(4.5) + 1
}

TEST(ExportTable, SeveralSamplesGetASampleColumnAndTheirCommonChannels) {
    std::vector<io::Table> tables = {massTable("dir/day0.fcs", 2, 0),
                                     massTable("day7.fcs", 3, 100)};
    tables[1].channels[0].name = "Event_length";  // only in one sample: left out
    tables[0].labels.push_back({"cluster", {"c1"}, {0, 0}});
    tables[1].labels.push_back({"cluster", {"c2", "c1"}, {0, 1, 1}});
    const Matrix xy = coordinates(5);
    ExportSource source;
    source.tables = tables;
    source.xy = &xy;
    const io::Table out = buildExportTable(source, {}, ExportFormat::Fcs);
    ASSERT_EQ(out.channels.size(), 4u);
    EXPECT_EQ(out.channels[0].name, "(Sm154)Di");
    EXPECT_EQ(out.values.at(3, 0), 111.0f);
    EXPECT_EQ(out.values.at(4, 3), 9.0f);
    ASSERT_EQ(out.labels.size(), 2u);
    EXPECT_EQ(out.labels[0].name, "cluster");
    EXPECT_EQ(out.labels[0].codes, (std::vector<int32_t>{0, 0, 1, 0, 0}));
    EXPECT_EQ(out.labels[1].name, "sample");
    EXPECT_EQ(out.labels[1].categories, (std::vector<std::string>{"day0", "day7"}));
    EXPECT_EQ(out.labels[1].codes, (std::vector<int32_t>{0, 0, 1, 1, 1}));
    source.sampleNames = {"Day 0", "Day 7"};
    EXPECT_EQ(buildExportTable(source, {}, ExportFormat::Csv).labels[1].categories,
              source.sampleNames);
}

TEST(ExportTable, AnEarlierExportsCoordinatesArePassedOverAndReplaced) {
    io::Table t = massTable("again.fcs", 2, 0);
    t.channels.push_back({"EmbedSOM1", "EmbedSOM 1", 9, 32});
    t.channels.push_back({"embed_y", "EmbedSOM", 9, 32});
    t.values = Matrix(2, 5, 1.0f);
    t.keywords.push_back({"$P4N", "EmbedSOM1"});
    t.keywords.push_back({"$P4D", "Linear,-9,9"});
    t.keywords.push_back({"$ORIGINALITY", "Original"});
    const Matrix xy = coordinates(2);
    ExportSource source;
    source.tables = std::span<const io::Table>(&t, 1);
    source.xy = &xy;
    const io::Table out = buildExportTable(source, {}, ExportFormat::Fcs);
    ASSERT_EQ(out.channels.size(), 5u);
    EXPECT_EQ(out.channels[3].name, "EmbedSOM1");
    EXPECT_EQ(out.channels[4].name, "EmbedSOM2");
    EXPECT_EQ(out.values.at(1, 3), -3.5f);
    std::vector<std::string> displays;
    for (const auto& [k, v] : out.keywords)
        if (k.size() > 3 && k.back() == 'D') displays.push_back(v);
    EXPECT_EQ(displays, (std::vector<std::string>{"Linear,-6,-2", "Linear,-1,3"}));
    EXPECT_EQ(*out.keyword("$ORIGINALITY"), "DataModified");
}

TEST(ExportTable, MismatchesAreRefusedWithAMessage) {
    const io::Table t = massTable("a.fcs", 3, 0);
    const Matrix xy = coordinates(2);
    ExportSource source;
    source.tables = std::span<const io::Table>(&t, 1);
    source.xy = &xy;
    EXPECT_THROW(buildExportTable(source, {}, ExportFormat::Csv), InputError);
    const Matrix right = coordinates(3);
    source.xy = &right;
    const PopulationCodes pops{"population", {"T"}, {0, 1, 0}};
    source.populations = &pops;
    EXPECT_THROW(buildExportTable(source, {}, ExportFormat::Csv), InputError);
    source.populations = nullptr;
    ExportOptions transformed;
    transformed.values = ExportValues::Transformed;
    source.usedColumns = {"CD3"};
    EXPECT_THROW(buildExportTable(source, transformed, ExportFormat::Csv), InputError);
    source.usedColumns = {"CD19"};
    EXPECT_THROW(buildExportTable(source, {}, ExportFormat::Csv), InputError);
    EXPECT_THROW(buildExportTable({}, {}, ExportFormat::Csv), InputError);
}

TEST(ExportFiles, FormatsAndFileNamesAreChecked) {
    EXPECT_EQ(exportFormatOf("out/y.CSV"), ExportFormat::Csv);
    EXPECT_EQ(exportFormatOf("y.fcs"), ExportFormat::Fcs);
    EXPECT_THROW(exportFormatOf("y.txt"), InputError);
    EXPECT_EQ(fileNamePart("CD4+ T cells/naive"), "CD4_T_cells_naive");
    EXPECT_EQ(fileNamePart("../x"), "x");
    EXPECT_EQ(fileNamePart("B.cells"), "B.cells");
    EXPECT_EQ(fileNamePart("///"), "population");
}

}  // namespace
}  // namespace sepal
