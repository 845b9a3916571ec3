// Exported FCS files: what FlowJo needs to re-import them (checked against the FCS 3.1 standard
// byte by byte) and what Sepal reads back (channels, raw values, keywords, spillover, names).

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "core/io/read_any.h"
#include "core/pipeline/export_files.h"
#include "test_paths.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

fs::path tempDir(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / ("sepal_export_" + std::to_string(::getpid()) + "_" + name);
    fs::create_directories(dir);
    return dir;
}

std::string fileBytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Checks `path` against FCS 3.1 (HEADER, TEXT, DATA as the standard lays them out) and
/// returns its TEXT keywords (upper-cased names).
std::map<std::string, std::string> checkFcs31(const fs::path& path) {
    const std::string bytes = fileBytes(path);
    std::map<std::string, std::string> kw;
    EXPECT_GE(bytes.size(), 58u);
    if (bytes.size() < 58) return kw;
    EXPECT_EQ(bytes.substr(0, 10), "FCS3.1    ");
    // Six right-justified ASCII offsets of 8 bytes: TEXT, DATA and ANALYSIS begin and end.
    std::vector<uint64_t> offset;
    for (size_t i = 0; i < 6; ++i) {
        const std::string field = bytes.substr(10 + 8 * i, 8);
        EXPECT_EQ(field.find_first_not_of(' '), field.find_first_of("0123456789")) << field;
        offset.push_back(std::strtoull(field.c_str(), nullptr, 10));
    }
    const uint64_t textBegin = offset[0], textEnd = offset[1];
    EXPECT_EQ(textBegin, 58u);
    EXPECT_LT(textEnd, bytes.size());
    if (textEnd >= bytes.size() || textBegin >= textEnd) return kw;
    const std::string text = bytes.substr(textBegin, textEnd - textBegin + 1);
    const char delimiter = text.front();
    EXPECT_EQ(text.back(), delimiter);  // TEXT ends with the delimiter
    // The writer picks a delimiter that occurs in no keyword or value, so pairs split plainly.
    std::vector<std::string> fields;
    for (size_t at = 1; at < text.size();) {
        const size_t next = text.find(delimiter, at);
        fields.push_back(text.substr(at, next - at));
        at = next + 1;
    }
    EXPECT_EQ(fields.size() % 2, 0u);
    for (size_t i = 0; i + 1 < fields.size(); i += 2) {
        std::string key = fields[i];
        for (char& c : key) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        EXPECT_FALSE(fields[i + 1].empty()) << key << " has an empty value";
        EXPECT_TRUE(kw.emplace(key, fields[i + 1]).second) << key << " appears twice";
    }
    for (const char* required :
         {"$BEGINANALYSIS", "$BEGINDATA", "$BEGINSTEXT", "$BYTEORD", "$DATATYPE", "$ENDANALYSIS",
          "$ENDDATA", "$ENDSTEXT", "$MODE", "$NEXTDATA", "$PAR", "$TOT"})
        EXPECT_TRUE(kw.count(required)) << required << " is missing";
    EXPECT_EQ(kw["$DATATYPE"], "F");
    EXPECT_EQ(kw["$BYTEORD"], "1,2,3,4");
    EXPECT_EQ(kw["$MODE"], "L");
    EXPECT_EQ(kw["$NEXTDATA"], "0");
    const size_t par = std::stoul(kw["$PAR"]), tot = std::stoul(kw["$TOT"]);
    for (size_t n = 1; n <= par; ++n) {
        const std::string p = "$P" + std::to_string(n);
        for (const char* suffix : {"B", "E", "N", "R"})
            EXPECT_TRUE(kw.count(p + suffix)) << p + suffix << " is missing";
        EXPECT_EQ(kw[p + "B"], "32");
        EXPECT_EQ(kw[p + "E"], "0,0");
        EXPECT_GT(std::strtod(kw[p + "R"].c_str(), nullptr), 0.0) << p << "R";
    }
    // DATA: where the HEADER and $BEGINDATA/$ENDDATA say, TOT x PAR x 4 bytes, then the CRC.
    const uint64_t dataBegin = std::stoull(kw["$BEGINDATA"]), dataEnd = std::stoull(kw["$ENDDATA"]);
    EXPECT_EQ(offset[2], dataBegin);
    EXPECT_EQ(offset[3], dataEnd);
    // Between TEXT and DATA only spaces: the room kept for TEXT when DATA is streamed, at most
    // what the numbers that change (offsets, counts, ranges) could take.
    EXPECT_GT(dataBegin, textEnd);
    EXPECT_EQ(bytes.substr(textEnd + 1, dataBegin - textEnd - 1),
              std::string(dataBegin - textEnd - 1, ' '));
    EXPECT_LE(dataBegin - textEnd - 1, 24 * (par + 3) + 80);
    EXPECT_EQ(dataEnd - dataBegin + 1, static_cast<uint64_t>(tot) * par * 4);
    EXPECT_EQ(bytes.size(), dataEnd + 1 + 8);
    EXPECT_EQ(offset[4], 0u);
    EXPECT_EQ(offset[5], 0u);
    return kw;
}

io::Table labelledTable() {
    io::Table t;
    t.source = "cells.fcs";
    t.channels = {{"FSC-A", "", 262144, 32}, {"(Sm154)Di", "CD3", 16384, 32}, {"Time", "", 0, 32}};
    t.values = Matrix(6, 3);
    for (size_t i = 0; i < t.values.values.size(); ++i)
        t.values.values[i] = 0.1f * static_cast<float>(i * i) - 1.0f;
    t.keywords = {{"$CYT", "Helios"}, {"$P2N", "(Sm154)Di"}, {"$P2V", "480"}, {"SPILL", "x"}};
    io::Spillover s;
    s.channels = {"FSC-A", "(Sm154)Di"};
    s.matrix = Matrix(2, 2);
    s.matrix.values = {1.0f, 0.01f, 0.2f, 1.0f};
    t.spillover = s;
    return t;
}

TEST(ExportFcs, FollowsFcs31AndReadsBackWithNamesAndRawValues) {
    const io::Table t = labelledTable();
    Matrix xy(6, 2);
    for (size_t i = 0; i < 6; ++i) xy.at(i, 0) = -12.5f + 3 * i, xy.at(i, 1) = 0.25f * i;
    const PopulationCodes pops{"population", {"T cells", "B cells"}, {0, 0, 1, -1, 1, 0}};
    ExportSource source;
    source.tables = std::span<const io::Table>(&t, 1);
    source.xy = &xy;
    source.populations = &pops;
    const fs::path dir = tempDir("standard");
    const fs::path path = dir / "cells_export.fcs";
    ASSERT_EQ(writeExport(path.string(), source, {}).size(), 1u);

    auto kw = checkFcs31(path);
    EXPECT_EQ(kw["$PAR"], "6");
    EXPECT_EQ(kw["$P4N"], "EmbedSOM1");
    EXPECT_EQ(kw["$P4S"], "EmbedSOM 1");
    EXPECT_EQ(kw["$P5N"], "EmbedSOM2");
    EXPECT_EQ(kw["$P5S"], "EmbedSOM 2");
    EXPECT_EQ(kw["$P4R"], "14");  // ceil(12.5) + 1 covers every |x|
    EXPECT_EQ(kw["$P4D"], "Linear,-14,4");
    EXPECT_EQ(kw["$P6N"], "population");
    EXPECT_EQ(kw["SEPAL_POPULATIONS"], "1:T cells;2:B cells");  // names in the file
    EXPECT_EQ(kw["SEPAL_POPULATION_PARAMETER"], "population");
    EXPECT_EQ(kw["$P2V"], "480");
    EXPECT_EQ(kw["$CYT"], "Helios");
    EXPECT_EQ(kw["$SPILLOVER"], kw["SPILL"]);

    const io::Table raw = io::readFcs(path.string());
    EXPECT_TRUE(raw.warnings.empty()) << raw.warnings.front();
    ASSERT_EQ(raw.values.cols, 6u);
    for (size_t i = 0; i < 6; ++i) {
        for (size_t j = 0; j < 3; ++j) EXPECT_EQ(raw.values.at(i, j), t.values.at(i, j));
        EXPECT_EQ(raw.values.at(i, 3), xy.at(i, 0));
        EXPECT_EQ(raw.values.at(i, 5), static_cast<float>(pops.codes[i] + 1));
    }
    const io::Table back = io::readTable(path.string());
    ASSERT_EQ(back.labels.size(), 1u);
    EXPECT_EQ(back.labels[0].categories, pops.names);
    EXPECT_EQ(back.labels[0].codes, pops.codes);
    EXPECT_EQ(back.channels[1].marker, "CD3");
    ASSERT_TRUE(back.spillover.has_value());
    EXPECT_EQ(back.spillover->channels, t.spillover->channels);
    EXPECT_EQ(back.spillover->matrix.values, t.spillover->matrix.values);
    fs::remove_all(dir);
}

TEST(ExportFcs, OneFilePerPopulationEachAValidFcsWithTheSameChannels) {
    const io::Table t = labelledTable();
    const Matrix xy(6, 2, 1.5f);
    const PopulationCodes pops{"population", {"CD4+ T/naive", "B", "NK"}, {0, -1, 1, 1, 0, 0}};
    ExportSource source;
    source.tables = std::span<const io::Table>(&t, 1);
    source.xy = &xy;
    source.populations = &pops;
    ExportOptions options;
    options.perPopulation = true;
    const fs::path dir = tempDir("split");
    const std::vector<std::string> written =
        writeExport((dir / "run.fcs").string(), source, options);
    // NK has no events, so no file; the unassigned event gets its own.
    EXPECT_EQ(written, (std::vector<std::string>{(dir / "run_CD4_T_naive.fcs").string(),
                                                 (dir / "run_B.fcs").string(),
                                                 (dir / "run_unassigned.fcs").string()}));
    EXPECT_FALSE(fs::exists(dir / "run.fcs"));
    const std::vector<size_t> events = {3, 2, 1};
    for (size_t f = 0; f < written.size(); ++f) {
        auto kw = checkFcs31(written[f]);
        EXPECT_EQ(kw["$TOT"], std::to_string(events[f]));
        EXPECT_EQ(kw["$PAR"], "6");
        const io::Table back = io::readTable(written[f]);
        ASSERT_EQ(back.channels.size(), 5u);
        EXPECT_EQ(back.channels[3].name, "EmbedSOM1");
        ASSERT_EQ(back.labels.size(), 1u);
        EXPECT_EQ(back.labels[0].categories, pops.names);
    }
    EXPECT_EQ(io::readFcs(written[1]).values.at(1, 0), t.values.at(3, 0));
    fs::remove_all(dir);
}

TEST(ExportFcs, WithoutPopulationsOneFilePerPopulationIsRefused) {
    const io::Table t = labelledTable();
    const Matrix xy(6, 2);
    ExportSource source;
    source.tables = std::span<const io::Table>(&t, 1);
    source.xy = &xy;
    ExportOptions options;
    options.perPopulation = true;
    EXPECT_THROW(writeExport("never.fcs", source, options), InputError);
    EXPECT_FALSE(fs::exists("never.fcs"));
}

TEST(ExportFcs, ARealFileWithSpilloverKeepsEveryChannelKeywordAndValue) {
    const fs::path input = test::sharedDataDir() / "fcs" / "flowkit" / "test_comp_example.fcs";
    if (!fs::exists(input)) GTEST_SKIP() << test::sharedDataMissing(input);
    const io::Table original = io::readTable(input.string());
    ASSERT_TRUE(original.spillover.has_value());
    const size_t n = original.events();
    Matrix xy(n, 2);
    PopulationCodes pops{"population", {"dim", "bright"}, std::vector<int32_t>(n, -1)};
    for (size_t i = 0; i < n; ++i) {
        xy.at(i, 0) = 0.001f * original.values.at(i, 0) - 20.0f;
        xy.at(i, 1) = 0.001f * original.values.at(i, 2);
        if (i % 7) pops.codes[i] = original.values.at(i, 3) > 1000.0f ? 1 : 0;
    }
    // Two samples of one file: the sample column joins, with its names.
    const std::vector<io::Table> tables = {original, original};
    Matrix xy2(2 * n, 2);
    PopulationCodes pops2 = pops;
    pops2.codes.insert(pops2.codes.end(), pops.codes.begin(), pops.codes.end());
    for (size_t i = 0; i < 2 * n; ++i)
        xy2.at(i, 0) = xy.at(i % n, 0), xy2.at(i, 1) = xy.at(i % n, 1);
    ExportSource source;
    source.tables = tables;
    source.sampleNames = {"tube A", "tube B"};
    source.xy = &xy2;
    source.populations = &pops2;
    const fs::path dir = tempDir("real");
    const fs::path path = dir / "comp.fcs";
    writeExport(path.string(), source, {});
    auto kw = checkFcs31(path);
    const size_t channels = original.channels.size();
    EXPECT_EQ(kw["$PAR"], std::to_string(channels + 4));
    EXPECT_EQ(kw["$TOT"], std::to_string(2 * n));
    EXPECT_TRUE(kw.count("SPILL"));  // the input used BD's keyword

    const io::Table back = io::readTable(path.string());
    EXPECT_TRUE(back.warnings.empty()) << back.warnings.front();
    ASSERT_EQ(back.channels.size(), channels + 2);
    for (size_t c = 0; c < channels; ++c) {
        EXPECT_EQ(back.channels[c].name, original.channels[c].name);
        EXPECT_EQ(back.channels[c].marker, original.channels[c].marker);
    }
    size_t differing = 0;
    for (size_t i = 0; i < 2 * n; ++i)
        for (size_t c = 0; c < channels; ++c)
            differing += back.values.at(i, c) != original.values.at(i % n, c);
    EXPECT_EQ(differing, 0u);  // raw values, bit for bit
    EXPECT_EQ(back.values.at(n + 5, channels), xy.at(5, 0));
    ASSERT_TRUE(back.spillover.has_value());
    EXPECT_EQ(back.spillover->channels, original.spillover->channels);
    EXPECT_EQ(back.spillover->matrix.values, original.spillover->matrix.values);
    // Keywords that describe the acquisition survive (not those of the old layout).
    size_t kept = 0, checked = 0;
    for (const auto& [k, v] : original.keywords) {
        std::string key = k;
        for (char& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (key.rfind("$P", 0) == 0 || key.rfind("$BEGIN", 0) == 0 || key.rfind("$END", 0) == 0 ||
            key == "$TIMESTEP" || key == "SPILL" || key == "$SPILLOVER" || key == "$BYTEORD" ||
            key == "$DATATYPE" || key == "$MODE" || key == "$NEXTDATA" || key == "$TOT" ||
            key == "$PAR" || v.empty())
            continue;
        ++checked;
        const std::string* value = back.keyword(k);
        kept += value && *value == v;
    }
    EXPECT_GT(checked, 5u);
    EXPECT_EQ(kept, checked);
    ASSERT_EQ(back.labels.size(), 2u);
    EXPECT_EQ(back.labels[0].categories, pops.names);
    EXPECT_EQ(back.labels[0].codes, pops2.codes);
    EXPECT_EQ(back.labels[1].name, "sample");
    EXPECT_EQ(back.labels[1].categories, source.sampleNames);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace sepal
