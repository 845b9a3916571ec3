#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/common/error.h"
#include "core/io/csv_reader.h"

namespace sepal {

namespace {
std::string errorOf(const std::string& text, const io::CsvReadOptions& options = {}) {
    try {
        io::parseCsv(text, options, "cells.csv");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(CsvReader, ReadsHeaderNumbersAndLabels) {
    const auto t = io::parseCsv("CD3,CD4,population\n1.5,2,T cell\n-3e2,+4,B cell\n0,.5,T cell\n");
    ASSERT_EQ(t.channels.size(), 2u);
    EXPECT_EQ(t.channels[0].name, "CD3");
    EXPECT_EQ(t.channels[1].name, "CD4");
    ASSERT_EQ(t.events(), 3u);
    EXPECT_FLOAT_EQ(t.values.at(0, 0), 1.5f);
    EXPECT_FLOAT_EQ(t.values.at(1, 0), -300.0f);
    EXPECT_FLOAT_EQ(t.values.at(1, 1), 4.0f);
    EXPECT_FLOAT_EQ(t.values.at(2, 1), 0.5f);
    ASSERT_EQ(t.labels.size(), 1u);
    EXPECT_EQ(t.labels[0].name, "population");
    EXPECT_EQ(t.labels[0].categories, (std::vector<std::string>{"T cell", "B cell"}));
    EXPECT_EQ(t.labels[0].codes, (std::vector<int32_t>{0, 1, 0}));
}

TEST(CsvReader, QuotedFieldsCrlfAndMissingCells) {
    const std::string text =
        "\"a\",\"b, with comma\",\"label\"\r\n"
        "1,NA,\"say \"\"hi\"\"\"\r\n"
        "\"2\",,\"two\r\nlines\"\r\n"
        "NaN,4,\r\n";
    const auto t = io::parseCsv(text);
    ASSERT_EQ(t.channels.size(), 2u);
    EXPECT_EQ(t.channels[1].name, "b, with comma");
    ASSERT_EQ(t.events(), 3u);
    EXPECT_FLOAT_EQ(t.values.at(1, 0), 2.0f);
    EXPECT_TRUE(std::isnan(t.values.at(0, 1)));
    EXPECT_TRUE(std::isnan(t.values.at(1, 1)));
    EXPECT_TRUE(std::isnan(t.values.at(2, 0)));
    EXPECT_FLOAT_EQ(t.values.at(2, 1), 4.0f);
    ASSERT_EQ(t.labels.size(), 1u);
    EXPECT_EQ(t.labels[0].categories, (std::vector<std::string>{"say \"hi\"", "two\r\nlines"}));
    EXPECT_EQ(t.labels[0].codes, (std::vector<int32_t>{0, 1, -1}));
}

TEST(CsvReader, DetectsTabAndSemicolonWithDecimalComma) {
    const auto tsv = io::parseCsv("x\ty\n1\t2\n3\t4\n");
    ASSERT_EQ(tsv.channels.size(), 2u);
    EXPECT_FLOAT_EQ(tsv.values.at(1, 1), 4.0f);
    const auto semi = io::parseCsv("x;y\n1,5;2\n3;4,25\n");
    ASSERT_EQ(semi.channels.size(), 2u);
    EXPECT_FLOAT_EQ(semi.values.at(0, 0), 1.5f);
    EXPECT_FLOAT_EQ(semi.values.at(1, 1), 4.25f);
}

TEST(CsvReader, HeaderOptions) {
    const auto absent = io::parseCsv("1,2\n3,4\n");
    ASSERT_EQ(absent.channels.size(), 2u);
    EXPECT_EQ(absent.channels[0].name, "V1");
    EXPECT_EQ(absent.channels[1].name, "V2");
    EXPECT_EQ(absent.events(), 2u);
    const auto present = io::parseCsv("1,2\n3,4\n", {io::CsvHeader::Present});
    EXPECT_EQ(present.channels[0].name, "1");
    EXPECT_EQ(present.events(), 1u);
    const auto forcedAbsent = io::parseCsv("a,b\n3,4\n", {io::CsvHeader::Absent});
    EXPECT_EQ(forcedAbsent.channels.size(), 0u);
    ASSERT_EQ(forcedAbsent.labels.size(), 2u);
    EXPECT_EQ(forcedAbsent.labels[0].name, "V1");
    EXPECT_EQ(forcedAbsent.labels[0].categories, (std::vector<std::string>{"a", "3"}));
}

TEST(CsvReader, EmptyHeaderNamesAndDuplicatesAreRenamedWithWarning) {
    const auto t = io::parseCsv("\"\",x,x\n1,2,3\n\n\n4,5,6\n");
    ASSERT_EQ(t.channels.size(), 3u);
    EXPECT_EQ(t.channels[0].name, "V1");
    EXPECT_EQ(t.channels[2].name, "x_3");
    EXPECT_EQ(t.warnings.size(), 1u);
    EXPECT_EQ(t.events(), 2u);
}

TEST(CsvReader, ErrorsNameFileLineAndColumn) {
    const std::string ragged = errorOf("a,b,c\n1,2,3\n4,5\n");
    EXPECT_NE(ragged.find("cells.csv: line 3, column 3"), std::string::npos) << ragged;
    EXPECT_NE(ragged.find("2 fields"), std::string::npos) << ragged;
    const std::string open = errorOf("a,b\n1,2\n3,\"unclosed\n4,5\n");
    EXPECT_NE(open.find("line 3, column 2 (\"b\")"), std::string::npos) << open;
    EXPECT_NE(open.find("never closed"), std::string::npos) << open;
    const std::string after = errorOf("a,b\n1,\"x\"y\n");
    EXPECT_NE(after.find("line 2, column 2"), std::string::npos) << after;
    EXPECT_NE(errorOf("").find("no rows"), std::string::npos);
    EXPECT_NE(errorOf("\n \r\n").find("no rows"), std::string::npos);
    EXPECT_THROW(io::readCsv("/nonexistent/cells.csv"), InputError);
}

TEST(CsvReader, ReadsCrLfAndCrOnlyLineEndingsAlike) {
    for (const std::string eol : {"\n", "\r\n", "\r"}) {
        const auto t = io::parseCsv("x,y,population" + eol + "1,2,T" + eol + "3,4.5,B" + eol + eol +
                                    "5,6,T" + eol);
        ASSERT_EQ(t.channels.size(), 2u) << "line ending of " << eol.size() << " bytes";
        EXPECT_EQ(t.events(), 3u);
        EXPECT_FLOAT_EQ(t.values.at(1, 1), 4.5f);
        ASSERT_EQ(t.labels.size(), 1u);
        EXPECT_EQ(t.labels[0].codes, (std::vector<int32_t>{0, 1, 0}));
    }
    // The last line need not end; a quoted field keeps its CRLF.
    const auto last = io::parseCsv("a,b\r1,\"x\r\ny\"\r2,z");
    EXPECT_EQ(last.events(), 2u);
    ASSERT_EQ(last.labels.size(), 1u);
    EXPECT_EQ(last.labels[0].categories[0], "x\r\ny");
}

TEST(CsvReader, ANumericColumnWithAFewBadCellsIsAnErrorListingThem) {
    std::string text = "a,CD4,b\n";
    for (int i = 0; i < 20; ++i) text += std::to_string(i) + "," + std::to_string(i) + ".5,1\n";
    text += "20,0x10,1\n21,1.5e,1\n22,NA,1\n23,,1\n";
    const std::string message = errorOf(text);
    EXPECT_NE(message.find("cells.csv: column 2 (\"CD4\")"), std::string::npos) << message;
    EXPECT_NE(message.find("2 of its 22 cells"), std::string::npos) << message;
    EXPECT_NE(message.find("line 22: \"0x10\", line 23: \"1.5e\""), std::string::npos) << message;
    // Mostly text: a label column, with its numeric-looking values as categories.
    const auto labels = io::parseCsv("x,cluster\n1,A\n2,B\n3,7\n4,A\n");
    ASSERT_EQ(labels.channels.size(), 1u);
    ASSERT_EQ(labels.labels.size(), 1u);
    EXPECT_EQ(labels.labels[0].categories, (std::vector<std::string>{"A", "B", "7"}));
    // Many bad cells: the first five are listed, then "...".
    std::string many = "x\n";
    for (int i = 0; i < 30; ++i) many += (i % 4 == 0 ? "bad" + std::to_string(i) : "1") + "\n";
    const std::string manyMessage = errorOf(many);
    EXPECT_NE(manyMessage.find("line 18: \"bad16\", ..."), std::string::npos) << manyMessage;
}

TEST(CsvReader, LargeInputSplitsIntoBlocksWithExactLineNumbers) {
    std::string text = "x,y,z\n";
    const size_t rows = 300000;
    for (size_t i = 0; i < rows; ++i)
        text += std::to_string(i) + "," + std::to_string(i % 977) + ".25,-" +
                std::to_string(i * 3) + "\n";
    const auto t = io::parseCsv(text);
    ASSERT_EQ(t.events(), rows);
    for (size_t i : {size_t{0}, size_t{123457}, rows - 1}) {
        EXPECT_FLOAT_EQ(t.values.at(i, 0), static_cast<float>(i));
        EXPECT_FLOAT_EQ(t.values.at(i, 1), static_cast<float>(i % 977) + 0.25f);
        EXPECT_FLOAT_EQ(t.values.at(i, 2), -static_cast<float>(i * 3));
    }
    // A bad row deep in the file is reported at its exact line.
    std::string bad = text;
    const std::string row = "\n250000,";
    const size_t at = bad.find(row);
    ASSERT_NE(at, std::string::npos);
    bad.insert(at + row.size(), "oops,");
    const std::string message = errorOf(bad);
    EXPECT_NE(message.find("line 250002,"), std::string::npos) << message;
}

}  // namespace sepal

namespace sepal {

// Sepal's CSV export heads a column "CD45 (In115Di)" and other tools "Comp-FITC-A :: CD3": both
// read back as the channel and its marker, as the FCS file held them; notes in brackets do not.
TEST(CsvReader, HeadersNamingAMarkerAndItsChannelAreSplit) {
    const auto t = io::parseCsv(
        "Time,CD45 (In115Di),Comp-FITC-A :: CD3,weight (kg),dose (2019),EmbedSOM1\n"
        "1,2,3,4,5,6\n");
    ASSERT_EQ(t.channels.size(), 6u);
    EXPECT_EQ(t.channels[0].name, "Time");
    EXPECT_EQ(t.channels[0].marker, "");
    EXPECT_EQ(t.channels[1].name, "In115Di");
    EXPECT_EQ(t.channels[1].marker, "CD45");
    EXPECT_EQ(t.channels[2].name, "Comp-FITC-A");
    EXPECT_EQ(t.channels[2].marker, "CD3");
    EXPECT_EQ(t.channels[3].name, "weight (kg)");
    EXPECT_EQ(t.channels[4].name, "dose (2019)");
    EXPECT_EQ(t.channels[5].name, "EmbedSOM1");
    EXPECT_EQ(t.findChannel("CD45"), 1);
    EXPECT_EQ(t.findChannel("In115Di"), 1);
}

// Splitting that would give two columns one channel name keeps every header whole.
// What Sepal's exports write for real files' channels reads back as those channels; units in
// brackets stay part of a plain table's names, which is then no cytometry.
TEST(CsvReader, HeadersOfRealChannelsSplitAndUnitsDoNot) {
    const auto t = io::parseCsv(
        "CD21;FITC;530/30@488/B (BL 530/30-A),CD103-FITC (FL1 INT LOG),"
        "Time (102.40 sec.) (Time),CD3 ((Sm154)Di),CD19 (142Nd),Comp-PE-Texas Red-A :: CD8,"
        "Comp-BV421-A :: ,area (m2),volume (m3),signal (A-1),rate (s-1),dose (mg2),"
        "CD8 (488/552nm PECy5.5 (710/40) LogH),CD20 (FL3 Log)\n"
        "1,2,3,4,5,6,7,8,9,10,11,12,13,14\n");
    const std::vector<std::pair<std::string, std::string>> want = {
        {"BL 530/30-A", "CD21;FITC;530/30@488/B"},
        {"FL1 INT LOG", "CD103-FITC"},
        {"Time", "Time (102.40 sec.)"},
        {"(Sm154)Di", "CD3"},
        {"142Nd", "CD19"},
        {"Comp-PE-Texas Red-A", "CD8"},
        {"Comp-BV421-A", ""},
        {"area (m2)", ""},
        {"volume (m3)", ""},
        {"signal (A-1)", ""},
        {"rate (s-1)", ""},
        {"dose (mg2)", ""},
        {"488/552nm PECy5.5 (710/40) LogH", "CD8"},
        {"FL3 Log", "CD20"}};
    ASSERT_EQ(t.channels.size(), want.size());
    for (size_t c = 0; c < want.size(); ++c) {
        EXPECT_EQ(t.channels[c].name, want[c].first);
        EXPECT_EQ(t.channels[c].marker, want[c].second) << want[c].first;
    }
}

TEST(CsvReader, HeadersStayWholeWhenSplittingWouldRepeatAName) {
    const auto t = io::parseCsv("CD14 (FITC-A),CD14b (FITC-A),CD3 (PE-A)\n1,2,3\n");
    ASSERT_EQ(t.channels.size(), 3u);
    EXPECT_EQ(t.channels[0].name, "CD14 (FITC-A)");
    EXPECT_EQ(t.channels[2].name, "CD3 (PE-A)");
    EXPECT_EQ(t.channels[2].marker, "");
}

}  // namespace sepal
