// Exports keep what the files stored: every real file of ../shared/data/fcs (flow and mass),
// read and written again as FCS, stores each channel's values bit for bit as the original did
// (Time in its ticks, before $PnG) with the same $TIMESTEP and $PnG; an export table for CSV
// holds the values as Sepal reads them ($PnG applied, as its gates and Gating-ML's truths see
// them), so that the CSV read back gates as the FCS file does. Log-amplified channels are the
// exception: FCS 3.1 allows no $PnE on float data, so they are written as the linear values they
// stand for.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/io/fcs_reader.h"
#include "core/io/fcs_writer.h"
#include "core/pipeline/export_table.h"
#include "test_paths.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;

// The keyword's value as a number (NaN when absent).
double keywordNumber(const io::Table& t, const std::string& key) {
    const std::string* v = t.keyword(key);
    return v ? std::stod(*v) : NAN;
}

// True when the original's parameter c is log-amplified ($PnE f1 > 0 on integer data).
bool logAmplified(const io::Table& raw, size_t c) {
    const std::string* e = raw.keyword("$P" + std::to_string(c + 1) + "E");
    const std::string* type = raw.keyword("$DATATYPE");
    return e && type && *type == "I" && std::stod(e->substr(0, e->find(','))) > 0;
}

TEST(ExportRaw, EveryRealFileKeepsItsStoredValuesTimeIncluded) {
    const fs::path dir = test::sharedDataDir() / "fcs";
    std::ifstream in(dir / "manifest.json");
    if (!in) GTEST_SKIP() << test::sharedDataMissing(dir / "manifest.json");
    const nlohmann::json manifest = nlohmann::json::parse(in);
    const fs::path out =
        fs::temp_directory_path() / ("sepal_export_raw_" + std::to_string(::getpid()) + ".fcs");
    size_t files = 0, scaledTime = 0, gained = 0;
    for (const auto& f : manifest["files"]) {
        if (f["datasets"].is_null() || !f["must_fail"].is_null()) continue;
        const std::string path = (dir / f["file"].get<std::string>()).string();
        SCOPED_TRACE(path);
        const io::Table read = io::readFcs(path);
        const io::Table stored = io::readFcs(path, {.raw = true});
        io::writeFcs(out.string(), read);
        const io::Table back = io::readFcs(out.string(), {.raw = true});
        ASSERT_EQ(back.events(), stored.events());
        for (size_t c = 0; c < read.channels.size(); ++c) {
            if (logAmplified(stored, c)) continue;
            size_t differ = 0;
            for (size_t i = 0; i < stored.events(); ++i)
                differ +=
                    !(back.values.at(i, c) == stored.values.at(i, c) ||
                      (std::isnan(back.values.at(i, c)) && std::isnan(stored.values.at(i, c))));
            EXPECT_EQ(differ, 0u) << read.channels[c].name << ": stored values changed";
            if (read.channels[c].gain != 1) {
                ++gained;
                EXPECT_EQ(keywordNumber(back, "$P" + std::to_string(c + 1) + "G"),
                          read.channels[c].gain);
            }
            if (read.channels[c].timestep != 1) {
                ++scaledTime;
                EXPECT_EQ(keywordNumber(back, "$TIMESTEP"), keywordNumber(stored, "$TIMESTEP"));
            }
        }
        // A CSV export of raw values holds the values as read: a CSV has no $PnG to apply.
        Matrix xy(read.events(), 2);
        ExportSource source;
        source.tables = std::span<const io::Table>(&read, 1);
        source.xy = &xy;
        const io::Table csv = buildExportTable(source, ExportOptions{}, ExportFormat::Csv);
        for (size_t c = 0; c < read.channels.size(); ++c) {
            if (logAmplified(stored, c)) continue;
            size_t column = csv.channels.size();
            for (size_t j = 0; j + 2 < csv.channels.size(); ++j)
                if (const std::string& label = csv.channels[j].name;
                    label == read.channels[c].name ||
                    label.ends_with("(" + read.channels[c].name + ")"))
                    column = j;
            if (column == csv.channels.size()) continue;  // a code parameter, written as labels
            size_t differ = 0;
            for (size_t i = 0; i < read.events(); ++i)
                differ +=
                    !(csv.values.at(i, column) == read.values.at(i, c) ||
                      (std::isnan(csv.values.at(i, column)) && std::isnan(read.values.at(i, c))));
            EXPECT_EQ(differ, 0u) << read.channels[c].name
                                  << ": the CSV export changed the values as read";
        }
        ++files;
    }
    fs::remove(out);
    EXPECT_GT(files, 10u);
    EXPECT_GT(scaledTime, 0u)
        << "no file of the corpus has a $TIMESTEP: the test shows nothing of Time";
    std::printf("%zu files; %zu Time channels with $TIMESTEP, %zu channels with $PnG kept\n", files,
                scaledTime, gained);
}

}  // namespace
}  // namespace sepal
