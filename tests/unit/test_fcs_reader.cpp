// The FCS reader on hand-built bytes: every quirk of the standard and of instruments, one by one.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "fcs_builder.h"

namespace sepal {
namespace {

using test::FcsBuilder;
using test::putDouble;
using test::putFloat;
using test::putInt;

io::Table read(const std::string& bytes, io::FcsReadOptions options = {}) {
    return io::readFcsBytes(test::bytesOf(bytes), "mem.fcs", options);
}

/// The InputError message for reading `bytes`, or "" when it was read.
std::string failure(const std::string& bytes, io::FcsReadOptions options = {}) {
    try {
        read(bytes, options);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool hasWarning(const io::Table& t, const std::string& part) {
    for (const auto& w : t.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

/// A float32 data set of two parameters and three events in the given byte order.
FcsBuilder floatSet(bool little) {
    FcsBuilder b;
    b.kw("$BYTEORD", little ? "1,2,3,4" : "4,3,2,1").kw("$DATATYPE", "F").kw("$MODE", "L");
    b.kw("$TOT", "3").params({"FSC-A", "CD3"}, {32, 32}, {"262144", "262144"});
    for (float v : {1.5f, -2.25f, 100.0f, 1e6f, 0.0f, 3.0e-5f}) putFloat(b.data, v, little);
    return b;
}

TEST(FcsReader, ReadsFloat32InBothByteOrders) {
    for (bool little : {true, false}) {
        const io::Table t = read(floatSet(little).build());
        ASSERT_EQ(t.events(), 3u);
        ASSERT_EQ(t.channels.size(), 2u);
        EXPECT_EQ(t.channels[1].name, "CD3");
        EXPECT_EQ(t.values.values, (std::vector<float>{1.5f, -2.25f, 100.0f, 1e6f, 0.0f, 3.0e-5f}));
        EXPECT_TRUE(t.warnings.empty()) << t.warnings[0];
    }
}

TEST(FcsReader, ReadsDoubles) {
    FcsBuilder b;
    b.kw("$BYTEORD", "4,3,2,1").kw("$DATATYPE", "D").kw("$MODE", "L").kw("$TOT", "2");
    b.params({"A"}, {64}, {"1000"});
    putDouble(b.data, 0.125, false);
    putDouble(b.data, -7.5, false);
    const io::Table t = read(b.build());
    EXPECT_EQ(t.values.values, (std::vector<float>{0.125f, -7.5f}));
}

TEST(FcsReader, ReadsEveryIntegerWidthInBothByteOrders) {
    for (bool little : {true, false}) {
        for (int bits = 8; bits <= 64; bits += 8) {
            SCOPED_TRACE(std::to_string(bits) + (little ? " LE" : " BE"));
            FcsBuilder b;
            b.kw("$BYTEORD", little ? "1,2,3,4" : "4,3,2,1").kw("$DATATYPE", "I");
            b.kw("$MODE", "L").kw("$TOT", "2").params({"X"}, {bits}, {"0"});
            const uint64_t top = bits == 64 ? (1ull << 40) : (1ull << (bits - 1)) + 3;
            putInt(b.data, 5, bits / 8, little);
            putInt(b.data, top, bits / 8, little);
            const io::Table t = read(b.build(), {.raw = true});
            ASSERT_EQ(t.events(), 2u);
            EXPECT_EQ(t.values.at(0, 0), 5.0f);
            EXPECT_EQ(t.values.at(1, 0), static_cast<float>(top));
            EXPECT_EQ(t.channels[0].bits, bits);
        }
    }
}

TEST(FcsReader, ReadsParametersOfDifferentWidthsInOneEvent) {
    for (bool little : {true, false}) {
        FcsBuilder b;
        b.kw("$BYTEORD", little ? "1,2,3,4" : "4,3,2,1").kw("$DATATYPE", "I");
        b.kw("$MODE", "L").kw("$TOT", "2");
        b.params({"a", "b", "c", "d", "e"}, {16, 32, 8, 24, 64},
                 {"65536", "4294967296", "256", "16777216", "0"});
        for (uint64_t e = 0; e < 2; ++e) {
            putInt(b.data, 1000 + e, 2, little);
            putInt(b.data, 70000 + e, 4, little);
            putInt(b.data, 200 + e, 1, little);
            putInt(b.data, 5000000 + e, 3, little);
            putInt(b.data, 123456789012ull + e, 8, little);
        }
        const io::Table t = read(b.build(), {.raw = true});
        ASSERT_EQ(t.events(), 2u);
        for (size_t e = 0; e < 2; ++e) {
            EXPECT_EQ(t.values.at(e, 0), 1000.0f + e);
            EXPECT_EQ(t.values.at(e, 1), 70000.0f + e);
            EXPECT_EQ(t.values.at(e, 2), 200.0f + e);
            EXPECT_EQ(t.values.at(e, 3), 5000000.0f + e);
            EXPECT_EQ(t.values.at(e, 4), static_cast<float>(123456789012ull + e));
        }
    }
}

TEST(FcsReader, MasksIntegersToTheBitRangeOfPnR) {
    for (const char* order : {"1,2", "2,1"}) {
        FcsBuilder b;
        b.version = "FCS2.0";
        const bool little = std::string(order) == "1,2";
        b.kw("$BYTEORD", order).kw("$DATATYPE", "I").kw("$MODE", "L").kw("$TOT", "1");
        b.params({"FS", "T"}, {16, 32}, {"1024", "11209599"});
        putInt(b.data, 16912, 2, little);      // 0x4210: 10 bits hold 528
        putInt(b.data, 142482809, 4, little);  // 24 bits (next power of two) hold 8265081
        const io::Table t = read(b.build(), {.raw = true});
        EXPECT_EQ(t.values.at(0, 0), 528.0f);
        EXPECT_EQ(t.values.at(0, 1), 8265081.0f);
    }
}

TEST(FcsReader, ScalesLogAndGainToLinearValuesUnlessRawAndKeepsTimeInTicks) {
    FcsBuilder b;
    b.kw("$BYTEORD", "4,3,2,1").kw("$DATATYPE", "I").kw("$MODE", "L").kw("$TOT", "1");
    b.params({"FSC-H", "FL1-H", "FL2-H", "Time"}, {16, 16, 16, 16},
             {"1024", "1024", "1024", "1024"});
    b.kw("$P1G", "4").kw("$P2E", "4,0").kw("$P3E", "3,2").kw("$TIMESTEP", "0.1");
    for (uint64_t v : {400u, 256u, 512u, 250u}) putInt(b.data, v, 2, false);
    const std::string bytes = b.build();
    const io::Table linear = read(bytes);
    EXPECT_FLOAT_EQ(linear.values.at(0, 0), 100.0f);
    EXPECT_FLOAT_EQ(linear.values.at(0, 1), 10.0f);  // 1 * 10^(4 * 256 / 1024)
    EXPECT_FLOAT_EQ(linear.values.at(0, 2), 2.0f * std::pow(10.0f, 1.5f));  // 2 * 10^(3 * 0.5)
    // Time stays in its ticks; its channel says how long a tick is.
    EXPECT_FLOAT_EQ(linear.values.at(0, 3), 250.0f);
    EXPECT_DOUBLE_EQ(linear.channels[3].timestep, 0.1);
    const io::Table raw = read(bytes, {.raw = true});
    EXPECT_EQ(raw.values.values, (std::vector<float>{400, 256, 512, 250}));
}

TEST(FcsReader, KeepsFloatTimeInTicksWithItsTimestepAndIgnoresLogOnFloats) {
    FcsBuilder b = floatSet(true);
    b.keywords[5].second = "Time";  // $P1N
    b.kw("$TIMESTEP", "0.5").kw("$P2E", "4,1");
    const io::Table t = read(b.build());
    EXPECT_FLOAT_EQ(t.values.at(0, 0), 1.5f);  // ticks; 0.75 s
    EXPECT_DOUBLE_EQ(t.channels[0].timestep, 0.5);
    EXPECT_FLOAT_EQ(t.values.at(0, 1), -2.25f);
    EXPECT_TRUE(hasWarning(t, "$P2E"));
}

TEST(FcsReader, ScalesManyEventsOfOneIntegerWidthAcrossThreads) {
    const size_t events = 40000;  // several blocks of rows
    FcsBuilder b;
    b.kw("$BYTEORD", "4,3,2,1").kw("$DATATYPE", "I").kw("$MODE", "L");
    b.kw("$TOT", std::to_string(events)).kw("$TIMESTEP", "0.01");
    b.params({"FSC-H", "SSC-H", "Time"}, {16, 16, 16}, {"1024", "65536", "65536"}).kw("$P2G", "8");
    for (size_t e = 0; e < events; ++e)
        for (uint64_t v : {e % 5000, (e * 7) % 65536, e}) putInt(b.data, v, 2, false);
    const std::string bytes = b.build();
    const io::Table t = read(bytes);
    const io::Table raw = read(bytes, {.raw = true});
    ASSERT_EQ(t.events(), events);
    for (size_t e = 0; e < events; e += 997) {
        EXPECT_EQ(raw.values.at(e, 0), static_cast<float>((e % 5000) & 1023));
        EXPECT_EQ(t.values.at(e, 0), static_cast<float>((e % 5000) & 1023));
        EXPECT_FLOAT_EQ(t.values.at(e, 1), static_cast<float>((e * 7) % 65536) / 8.0f);
        EXPECT_FLOAT_EQ(t.values.at(e, 2), static_cast<float>(e % 65536));  // ticks of 0.01 s
    }
}

TEST(FcsReader, ReadsLargeFloatDataSets) {
    const size_t events = 1 << 20, cols = 17;  // 68 MB: past the size where memory is prefaulted
    FcsBuilder b;
    b.kw("$BYTEORD", "1,2,3,4").kw("$DATATYPE", "F").kw("$MODE", "L");
    b.kw("$TOT", std::to_string(events)).kw("$PAR", std::to_string(cols));
    for (size_t c = 1; c <= cols; ++c) {
        // Appended, not "C" + to_string(c): GCC 12 warns (-Wstringop-overflow) on the latter's
        // inlined insert here, wrongly.
        const std::string n = std::to_string(c);
        std::string name = "C";
        name += n;
        b.kw("$P" + n + "N", name).kw("$P" + n + "B", "32");
    }
    b.data.resize(events * cols * 4);
    for (size_t i = 0; i < events * cols; ++i) {
        const float v = static_cast<float>(i % 100003) * 0.25f;
        std::memcpy(&b.data[i * 4], &v, 4);
    }
    const io::Table t = read(b.build());
    ASSERT_EQ(t.values.values.size(), events * cols);
    for (size_t i = 0; i < events * cols; i += 4099)
        ASSERT_EQ(t.values.values[i], static_cast<float>(i % 100003) * 0.25f) << i;
}

TEST(FcsReader, ReadsAsciiFixedWidthAndDelimited) {
    FcsBuilder fixed;
    fixed.kw("$DATATYPE", "A").kw("$MODE", "L").kw("$TOT", "2");
    fixed.params({"a", "b"}, {4, 3}, {"1024", "1024"});
    fixed.data = "  12 34 100  7";
    EXPECT_EQ(read(fixed.build()).values.values, (std::vector<float>{12, 34, 100, 7}));
    FcsBuilder delimited;
    delimited.kw("$DATATYPE", "A").kw("$MODE", "L").kw("$TOT", "2");
    delimited.params({"a", "b"}, {0, 0}, {"1024", "1024"});
    delimited.keywords[5].second = "*";  // $P1B
    delimited.keywords[8].second = "*";  // $P2B
    delimited.data = "1.5,2\n3 -4\r\n";
    EXPECT_EQ(read(delimited.build()).values.values, (std::vector<float>{1.5f, 2, 3, -4}));
}

TEST(FcsReader, AcceptsAnyDelimiterAndEscapedDelimiters) {
    for (char d : {'/', '|', '\\', '\x0c', '*', ' '}) {
        FcsBuilder b = floatSet(true);
        b.delimiter = d;
        b.kw("$P2S", std::string("CD3") + d + "CD28").kw("$CYT", "cytometer");
        const io::Table t = read(b.build());
        EXPECT_EQ(t.channels[1].marker, std::string("CD3") + d + "CD28") << int(d);
        ASSERT_NE(t.keyword("$CYT"), nullptr);
        EXPECT_EQ(*t.keyword("$CYT"), "cytometer");
    }
}

TEST(FcsReader, ReadsFcs2EmptyValuesWrittenAsDoubledDelimiters) {
    FcsBuilder b = floatSet(false);
    b.version = "FCS2.0";
    b.textOffsets = false;
    b.rawText = b.renderText(0, 0) + "SAMPLE//&6Prefix/x/EMPTY//";
    const io::Table t = read(b.build());
    ASSERT_NE(t.keyword("SAMPLE"), nullptr);
    EXPECT_EQ(*t.keyword("SAMPLE"), "");
    EXPECT_EQ(*t.keyword("&6Prefix"), "x");
    EXPECT_EQ(*t.keyword("EMPTY"), "");
    EXPECT_EQ(t.events(), 3u);
}

TEST(FcsReader, ToleratesAMissingFinalDelimiterAndTrailingPadding) {
    FcsBuilder b = floatSet(true);
    b.textOffsets = false;
    const std::string base = b.renderText(0, 0);
    b.rawText = base + "$CYT/last value";
    io::Table t = read(b.build());
    EXPECT_EQ(*t.keyword("$CYT"), "last value");
    EXPECT_TRUE(hasWarning(t, "does not end with its delimiter"));
    b.rawText = base + "$CYT/x/" + std::string(40, ' ');
    t = read(b.build());
    EXPECT_EQ(*t.keyword("$CYT"), "x");
    EXPECT_TRUE(t.warnings.empty());
}

TEST(FcsReader, KeepsEveryKeywordInFileOrder) {
    FcsBuilder b = floatSet(true);
    b.kw("$VOL", "10").kw("custom key", "a value").kw("$VOL", "20");
    const io::Table t = read(b.build());
    std::vector<std::pair<std::string, std::string>> want = {{"$BEGINDATA", ""}, {"$ENDDATA", ""}};
    ASSERT_EQ(t.keywords.size(), b.keywords.size() + 2);
    for (size_t i = 0; i < b.keywords.size(); ++i) EXPECT_EQ(t.keywords[i + 2], b.keywords[i]);
    EXPECT_EQ(*t.keyword("$vol"), "10");
    EXPECT_TRUE(hasWarning(t, "more than once"));
}

TEST(FcsReader, NamesFallBackFromPnNToPnSToPn) {
    FcsBuilder b;
    b.kw("$BYTEORD", "1,2,3,4").kw("$DATATYPE", "F").kw("$MODE", "L").kw("$TOT", "1");
    b.kw("$PAR", "3").kw("$P1N", " FSC-A ").kw("$P1B", "32").kw("$P2S", "CD4").kw("$P2B", "32");
    b.kw("$P3B", "32").kw("$P3S", " ");
    for (int i = 0; i < 3; ++i) putFloat(b.data, 1.0f, true);
    const io::Table t = read(b.build());
    EXPECT_EQ(t.channels[0].name, "FSC-A");
    EXPECT_EQ(t.channels[1].name, "CD4");
    EXPECT_EQ(t.channels[1].marker, "CD4");
    EXPECT_EQ(t.channels[2].name, "P3");
    EXPECT_EQ(t.channels[2].marker, "");
    EXPECT_TRUE(hasWarning(t, "$PnN"));
}

TEST(FcsReader, UsesTextOffsetsWhenHeaderOffsetsAreBlank) {
    FcsBuilder b = floatSet(false);
    b.headerOffsets = false;
    const io::Table t = read(b.build());
    EXPECT_EQ(t.values.at(2, 1), 3.0e-5f);
    EXPECT_TRUE(t.warnings.empty());
}

TEST(FcsReader, UsesHeaderOffsetsWhenTextHasNone) {
    FcsBuilder b = floatSet(false);
    b.version = "FCS2.0";
    b.textOffsets = false;
    b.gap = 100;
    EXPECT_EQ(read(b.build()).values.at(0, 0), 1.5f);
}

TEST(FcsReader, ReconcilesDisagreeingOffsetsByLength) {
    // HEADER points into TEXT (wrong length): the TEXT offsets win, with a warning.
    FcsBuilder b = floatSet(true);
    b.headerBegin = 60;
    io::Table t = read(b.build());
    EXPECT_EQ(t.values.at(0, 0), 1.5f);
    EXPECT_TRUE(hasWarning(t, "disagree"));
    // HEADER end past the end of the file: TEXT wins.
    b = floatSet(true);
    b.headerEnd = 1000000;
    t = read(b.build());
    EXPECT_EQ(t.values.at(2, 1), 3.0e-5f);
    EXPECT_TRUE(hasWarning(t, "disagree"));
    // Both have the right length at different places: the HEADER wins.
    b = floatSet(true);
    const std::string first = b.data;
    std::string second;
    for (float v : {9.0f, 8.0f, 7.0f, 6.0f, 5.0f, 4.0f}) putFloat(second, v, true);
    b.data = first + second;
    const std::string probe = b.build();
    const int64_t dataBegin = static_cast<int64_t>(probe.size() - b.data.size());
    b.headerBegin = dataBegin + 24;
    b.headerEnd = dataBegin + 47;
    b.textBegin = dataBegin;
    b.textEnd = dataBegin + 23;
    t = read(b.build());
    EXPECT_EQ(t.values.at(0, 0), 9.0f);
    EXPECT_TRUE(hasWarning(t, "disagree"));
    // $ENDDATA one byte too far (a common writer bug): read, with a warning.
    b = floatSet(true);
    b.data += '\0';
    b.headerEnd = -1;
    t = read(b.build());
    EXPECT_EQ(t.values.at(2, 1), 3.0e-5f);
    EXPECT_TRUE(hasWarning(t, "longer"));
}

TEST(FcsReader, AcceptsEnddataOnePastTheEndWhenTheDataFillsTheFile) {
    // Both offsets end one byte past the file: the DATA is the file's last 24 bytes, whole.
    FcsBuilder b = floatSet(true);
    const int64_t size = static_cast<int64_t>(b.build().size());
    b.headerEnd = size;
    b.textEnd = size;
    const std::string bytes = b.build();
    ASSERT_EQ(static_cast<int64_t>(bytes.size()), size);
    const io::Table t = read(bytes);
    EXPECT_EQ(t.values.at(0, 0), 1.5f);
    EXPECT_EQ(t.values.at(2, 1), 3.0e-5f);
    EXPECT_TRUE(hasWarning(t, "one byte past the end of the file")) << t.warnings.front();
    // inspect (sepal-cli info) and read (convert) agree: the events are readable.
    const io::FcsFileInfo info = io::inspectFcsBytes(test::bytesOf(bytes), "mem.fcs");
    ASSERT_EQ(info.datasets.size(), 1u);
    EXPECT_TRUE(info.datasets[0].eventsReadable);
    // Without $TOT the events are inferred from the whole segment.
    FcsBuilder noTot = floatSet(true);
    std::erase_if(noTot.keywords, [](const auto& kv) { return kv.first == "$TOT"; });
    const int64_t noTotSize = static_cast<int64_t>(noTot.build().size());
    noTot.headerEnd = noTotSize;
    noTot.textEnd = noTotSize;
    EXPECT_EQ(read(noTot.build()).events(), 3u);
    // A byte of DATA really missing is still refused as truncated.
    const std::string cut = bytes.substr(0, bytes.size() - 1);
    EXPECT_NE(failure(cut).find("truncated"), std::string::npos) << failure(cut);
    EXPECT_FALSE(io::inspectFcsBytes(test::bytesOf(cut), "cut.fcs").datasets[0].eventsReadable);
}

TEST(FcsReader, FailsClearlyWhenNoOffsetsFitTheData) {
    FcsBuilder b = floatSet(true);
    b.headerBegin = 60;
    b.textBegin = 61;
    const std::string msg = failure(b.build());
    EXPECT_NE(msg.find("mem.fcs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("DATA"), std::string::npos) << msg;
    EXPECT_NE(msg.find("24 bytes"), std::string::npos) << msg;
}

TEST(FcsReader, ReadsEveryDataSetOfANextdataChain) {
    FcsBuilder second = floatSet(false);
    second.version = "FCS3.0";
    second.keywords[3].second = "2";  // $TOT
    second.data.resize(16);
    FcsBuilder first;
    first.version = "FCS2.0";
    first.kw("$BYTEORD", "1,2").kw("$DATATYPE", "I").kw("$MODE", "L").kw("$TOT", "2");
    first.params({"X"}, {16}, {"1024"}).kw("$NEXTDATA", "0000000000");
    putInt(first.data, 7, 2, true);
    putInt(first.data, 9, 2, true);
    const size_t firstSize = first.build().size();
    first.keywords.back().second = std::to_string(firstSize);
    first.keywords.back().second.insert(0, 10 - first.keywords.back().second.size(), '0');
    first.trailer = second.build();
    const std::string bytes = first.build();
    const io::FcsFileInfo info = io::inspectFcsBytes(test::bytesOf(bytes), "mem.fcs");
    ASSERT_EQ(info.datasets.size(), 2u);
    EXPECT_EQ(info.datasets[0].version, "FCS2.0");
    EXPECT_EQ(info.datasets[1].version, "FCS3.0");
    EXPECT_EQ(info.datasets[1].events, 2u);
    EXPECT_EQ(read(bytes, {.dataset = 0}).values.values, (std::vector<float>{7, 9}));
    const io::Table t = read(bytes, {.dataset = 1});
    EXPECT_EQ(t.values.values, (std::vector<float>{1.5f, -2.25f, 100.0f, 1e6f}));
    EXPECT_NE(failure(bytes, {.dataset = 2}).find("holds 2"), std::string::npos);
}

TEST(FcsReader, ReadsSpilloverByNamesIndicesOrPosition) {
    FcsBuilder b = floatSet(true);
    b.kw("$SPILLOVER", "2,FSC-A,CD3,1,0.1,0.2,1");
    io::Table t = read(b.build());
    ASSERT_TRUE(t.spillover.has_value());
    EXPECT_EQ(t.spillover->channels, (std::vector<std::string>{"FSC-A", "CD3"}));
    EXPECT_EQ(t.spillover->matrix.values, (std::vector<float>{1, 0.1f, 0.2f, 1}));
    b = floatSet(true);
    b.kw("SPILL", "1,2,1");
    t = read(b.build());
    ASSERT_TRUE(t.spillover.has_value());
    EXPECT_EQ(t.spillover->channels, (std::vector<std::string>{"CD3"}));
    b = floatSet(true);
    b.kw("$COMP", "2,1,0,0.5,1");
    t = read(b.build());
    ASSERT_TRUE(t.spillover.has_value());
    EXPECT_EQ(t.spillover->channels, (std::vector<std::string>{"FSC-A", "CD3"}));
    EXPECT_EQ(t.spillover->matrix.at(1, 0), 0.5f);
    b = floatSet(true);
    b.kw("$SPILLOVER", "2,FSC-A,CD3");
    t = read(b.build());
    EXPECT_FALSE(t.spillover.has_value());
    EXPECT_TRUE(hasWarning(t, "$SPILLOVER"));
}

TEST(FcsReader, RefusesUnsupportedLayoutsWithReasons) {
    auto with = [](const std::string& key, const std::string& value) {
        FcsBuilder b = floatSet(true);
        for (auto& kv : b.keywords)
            if (kv.first == key) kv.second = value;
        return failure(b.build());
    };
    EXPECT_NE(with("$DATATYPE", "X").find("$DATATYPE"), std::string::npos);
    EXPECT_NE(with("$MODE", "C").find("$MODE"), std::string::npos);
    EXPECT_NE(with("$BYTEORD", "3,4,1,2").find("$BYTEORD"), std::string::npos);
    EXPECT_NE(with("$PAR", "0").find("$PAR"), std::string::npos);
    EXPECT_NE(with("$TOT", "many").find("$TOT"), std::string::npos);
    FcsBuilder b;
    b.kw("$BYTEORD", "1,2,3,4").kw("$DATATYPE", "I").kw("$MODE", "L").kw("$TOT", "1");
    b.params({"X"}, {12}, {"4096"});
    b.data = "ab";
    const std::string msg = failure(b.build());
    EXPECT_NE(msg.find("$P1B"), std::string::npos) << msg;
    EXPECT_NE(msg.find("TEXT"), std::string::npos) << msg;
}

TEST(FcsReader, NamesFileSegmentAndOffsetForDamagedFiles) {
    std::string msg = failure("not an fcs file at all, but long enough to hold a HEADER.......");
    EXPECT_NE(msg.find("mem.fcs: HEADER at byte 0"), std::string::npos) << msg;
    msg = failure("FCS3.1");
    EXPECT_NE(msg.find("HEADER"), std::string::npos) << msg;
    const std::string good = floatSet(true).build();
    msg = failure(good.substr(0, 70));
    EXPECT_NE(msg.find("TEXT at byte 58"), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    msg = failure(good.substr(0, good.size() - 5));
    EXPECT_NE(msg.find("DATA"), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    std::string badField = good;
    badField.replace(26, 8, "  12x456");
    msg = failure(badField);
    EXPECT_NE(msg.find("HEADER at byte 26"), std::string::npos) << msg;
}

TEST(FcsReader, EveryPrefixOfAFileIsReadOrRefusedNeverCrashes) {
    FcsBuilder b = floatSet(false);
    b.kw("$SPILLOVER", "2,FSC-A,CD3,1,0.1,0.2,1");
    const std::string good = b.build();
    for (size_t n = 0; n <= good.size(); ++n) {
        try {
            read(good.substr(0, n));
            EXPECT_EQ(n, good.size());
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("mem.fcs"), std::string::npos);
        }
    }
}

TEST(FcsReader, InspectListsMetadataOfATruncatedFileWithoutEvents) {
    const std::string good = floatSet(true).build();
    const std::string cut = good.substr(0, good.size() - 4);
    const io::FcsFileInfo info = io::inspectFcsBytes(test::bytesOf(cut), "cut.fcs");
    ASSERT_EQ(info.datasets.size(), 1u);
    EXPECT_EQ(info.datasets[0].events, 3u);
    EXPECT_FALSE(info.datasets[0].eventsReadable);
    EXPECT_EQ(info.datasets[0].parameters[1].name, "CD3");
    EXPECT_DOUBLE_EQ(info.datasets[0].parameters[1].range, 262144);
    EXPECT_FALSE(info.datasets[0].warnings.empty());
}

TEST(FcsReader, ReadsFromAPathThroughAMemoryMap) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("sepal_reader_test_" + std::to_string(::getpid()) + ".fcs");
    {
        std::ofstream out(path, std::ios::binary);
        out << floatSet(false).build();
    }
    const io::Table t = io::readFcs(path.string());
    EXPECT_EQ(t.source, path.string());
    EXPECT_EQ(t.values.at(1, 1), 1e6f);
    EXPECT_EQ(io::inspectFcs(path.string()).datasets[0].events, 3u);
    std::filesystem::remove(path);
    try {
        io::readFcs(path.string());
        ADD_FAILURE() << "read a missing file";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);
    }
}

}  // namespace
}  // namespace sepal
