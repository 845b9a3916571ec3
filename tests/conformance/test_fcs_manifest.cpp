// The FCS reader against real files from other readers' test suites, described by
// shared/data/fcs/manifest.json: data sets, events, parameters, first events, whole-file truths.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "core/io/fcs_writer.h"
#include "test_paths.h"

namespace sepal {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path fcsDir() {
    return test::sharedDataDir() / "fcs";
}

/// The manifest, or null json when the corpus is absent.
json loadManifest() {
    std::ifstream in(fcsDir() / "manifest.json");
    if (!in) return json();
    return json::parse(in);
}

/// The manifest stores names as if the file's bytes were Latin-1; recover those bytes.
std::string latin1Bytes(const std::string& utf8) {
    std::string out;
    for (size_t i = 0; i < utf8.size(); ++i) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if ((c & 0xE0) == 0xC0 && i + 1 < utf8.size()) {
            out.push_back(static_cast<char>(((c & 0x1F) << 6) | (utf8[i + 1] & 0x3F)));
            ++i;
        } else {
            return utf8;  // not a Latin-1 reading: compare as is
        }
    }
    return out;
}

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// A first_events entry: a number, or ["raw=...", "masked=..."] where masking changes it.
double expectedValue(const json& v) {
    if (v.is_number()) return v.get<double>();
    for (const auto& s : v) {
        const std::string text = s.get<std::string>();
        if (text.rfind("masked=", 0) == 0) return std::stod(text.substr(7));
    }
    ADD_FAILURE() << "unreadable first_events entry " << v.dump();
    return NAN;
}

/// float64 values of a .npy file (little-endian '<f8', C order) or of a headerless dump.
std::vector<double> readDoubles(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t start = 0;
    if (bytes.rfind("\x93NUMPY", 0) == 0) {
        EXPECT_NE(bytes.find("'<f8'"), std::string::npos) << path;
        const size_t headerLength =
            static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        start = 10 + headerLength;
    }
    std::vector<double> values((bytes.size() - start) / 8);
    std::memcpy(values.data(), bytes.data() + start, values.size() * 8);
    return values;
}

void expectNear(double expected, float got, const std::string& where) {
    const double tolerance = 1e-6 * std::max(1.0, std::fabs(expected));
    EXPECT_NEAR(got, expected, tolerance) << where;
}

class FcsManifest : public ::testing::Test {
  protected:
    void SetUp() override {
        manifest = loadManifest();
        if (manifest.is_null()) GTEST_SKIP() << test::sharedDataMissing(fcsDir() / "manifest.json");
    }
    std::string pathOf(const json& entry) const {
        return (fcsDir() / entry["file"].get<std::string>()).string();
    }
    json manifest;
};

TEST_F(FcsManifest, InspectAgreesWithEveryFile) {
    int agreeing = 0;
    for (const auto& f : manifest["files"]) {
        const std::string path = pathOf(f);
        SCOPED_TRACE(path);
        if (f["datasets"].is_null() || f["datasets"].empty()) {
            try {
                io::inspectFcs(path);
                ADD_FAILURE() << "a file that is not FCS was accepted";
            } catch (const InputError& e) {
                const std::string msg = e.what();
                EXPECT_NE(msg.find(path), std::string::npos) << msg;
                EXPECT_NE(msg.find("HEADER"), std::string::npos) << msg;
                EXPECT_NE(msg.find("byte"), std::string::npos) << msg;
            }
            ++agreeing;
            continue;
        }
        const io::FcsFileInfo info = io::inspectFcs(path);
        ASSERT_EQ(info.datasets.size(), f["datasets"].size());
        for (size_t d = 0; d < info.datasets.size(); ++d) {
            const auto& want = f["datasets"][d];
            const auto& got = info.datasets[d];
            EXPECT_EQ(got.version, want["version"].get<std::string>());
            EXPECT_EQ(got.events, want["TOT"].get<size_t>());
            EXPECT_EQ(std::string(1, got.datatype), want["DATATYPE"].get<std::string>());
            EXPECT_EQ(trimmed(got.byteOrder), want["BYTEORD"].get<std::string>());
            ASSERT_EQ(got.parameters.size(), want["PAR"].get<size_t>());
            std::vector<int> widths;
            for (const auto& b : want["PnB"]) widths.push_back(std::stoi(b.get<std::string>()));
            for (size_t p = 0; p < got.parameters.size(); ++p) {
                const auto& param = got.parameters[p];
                EXPECT_EQ(param.name, trimmed(latin1Bytes(want["PnN"][p].get<std::string>())));
                const std::string marker =
                    want["PnS"][p].is_null() ? "" : latin1Bytes(want["PnS"][p].get<std::string>());
                EXPECT_EQ(param.marker, trimmed(marker));
                EXPECT_DOUBLE_EQ(param.range, std::stod(want["PnR"][p].get<std::string>()));
                EXPECT_NE(std::find(widths.begin(), widths.end(), param.bits), widths.end())
                    << "bits " << param.bits;
            }
        }
        if (!HasFailure()) ++agreeing;  // failures accumulate: counts files before the first
    }
    std::printf("inspectFcs: %d of %zu files agree with the manifest\n", agreeing,
                manifest["files"].size());
}

TEST_F(FcsManifest, FirstEventsMatchTheStoredValues) {
    for (const auto& f : manifest["files"]) {
        if (f["datasets"].is_null() || !f["expected_behaviour"].is_null() ||
            !f["must_fail"].is_null())
            continue;
        const std::string path = pathOf(f);
        for (size_t d = 0; d < f["datasets"].size(); ++d) {
            SCOPED_TRACE(path + " data set " + std::to_string(d));
            const auto& want = f["datasets"][d];
            if (!want.contains("first_events")) continue;
            const io::Table t = io::readFcs(path, {.dataset = d, .raw = true});
            ASSERT_EQ(t.events(), want["TOT"].get<size_t>());
            const auto& rows = want["first_events"];
            for (size_t r = 0; r < rows.size(); ++r)
                for (size_t c = 0; c < rows[r].size(); ++c)
                    expectNear(expectedValue(rows[r][c]), t.values.at(r, c),
                               "event " + std::to_string(r) + " parameter " + std::to_string(c));
        }
    }
}

TEST_F(FcsManifest, TimeIsTicksOfItsTimestepWhateverItsGain) {
    // BD's instruments write $PnG = $TIMESTEP = 0.01 for Time. The gain is an amplifier's: the
    // read Time is the stored ticks (as with a gain of 1), seconds are ticks x $TIMESTEP (the
    // Diva file's 83,411 events over 6 to 111 s, not 632 to 11,110 s).
    size_t seen = 0;
    for (const auto& f : manifest["files"]) {
        if (f["datasets"].is_null() || !f["must_fail"].is_null() ||
            !f["expected_behaviour"].is_null())
            continue;
        const auto& want = f["datasets"][0];
        if (!want.contains("first_events") || !want.contains("PnN")) continue;
        const auto& names = want["PnN"];
        size_t time = names.size();
        for (size_t c = 0; c < names.size(); ++c)
            if (names[c].is_string() && names[c].get<std::string>() == "Time") time = c;
        if (time == names.size()) continue;
        const std::string path = pathOf(f);
        const io::Table read = io::readFcs(path);
        if (read.channels[time].timestep == 1) continue;
        SCOPED_TRACE(path);
        EXPECT_EQ(read.channels[time].gain, 1.0);
        expectNear(expectedValue(want["first_events"][0][time]), read.values.at(0, time),
                   "the first event's Time");
        ++seen;
    }
    EXPECT_GE(seen, 2u);  // FACS_Diva__facs_diva_test.fcs and test_comp_example.fcs at least
}

TEST_F(FcsManifest, TruncatedFilesListMetadataButRefuseEvents) {
    int seen = 0;
    for (const auto& f : manifest["files"]) {
        if (f["must_fail"].is_null() || f["datasets"].is_null() || f["datasets"].empty()) continue;
        const std::string path = pathOf(f);
        SCOPED_TRACE(path);
        const io::FcsFileInfo info = io::inspectFcs(path);
        ASSERT_FALSE(info.datasets.empty());
        EXPECT_FALSE(info.datasets[0].eventsReadable);
        EXPECT_FALSE(info.datasets[0].warnings.empty());
        try {
            io::readFcs(path);
            ADD_FAILURE() << "events of a truncated file were read";
        } catch (const InputError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
            EXPECT_NE(msg.find("DATA"), std::string::npos) << msg;
            EXPECT_NE(msg.find(path), std::string::npos) << msg;
        }
        ++seen;
    }
    EXPECT_GT(seen, 0);
}

TEST_F(FcsManifest, DisagreeingOffsetsAreReconciledWithAWarning) {
    const io::Table reference = io::readFcs(
        (fcsDir() / "flowio/fcs_files__variable_int_example.fcs").string(), {.raw = true});
    int seen = 0;
    for (const auto& f : manifest["files"]) {
        if (f["expected_behaviour"].is_null()) continue;
        const std::string path = pathOf(f);
        SCOPED_TRACE(path);
        const io::Table t = io::readFcs(path, {.raw = true});
        EXPECT_EQ(t.values.values, reference.values.values);
        bool warned = false;
        for (const auto& w : t.warnings) warned = warned || w.find("disagree") != std::string::npos;
        EXPECT_TRUE(warned);
        ++seen;
    }
    EXPECT_GT(seen, 0);
}

/// Compares every event of `fcs` (raw or linear) with a float64 truth file of the same shape.
/// The file's values against a truth: raw, or scaled (Time, kept in ticks, times its channel's
/// $TIMESTEP: the seconds FlowIO gives).
void expectWholeFile(const fs::path& fcs, const fs::path& truth, bool raw) {
    if (!fs::exists(truth)) GTEST_SKIP() << test::sharedDataMissing(truth);
    SCOPED_TRACE(fcs.string() + " vs " + truth.string());
    const io::Table t = io::readFcs(fcs.string(), {.raw = raw});
    const std::vector<double> want = readDoubles(truth);
    ASSERT_EQ(want.size(), t.values.values.size());
    size_t bad = 0;
    const size_t cols = t.channels.size();
    for (size_t i = 0; i < want.size(); ++i) {
        const double seconds = raw ? 1.0 : t.channels[i % cols].timestep;
        const double got = double(t.values.values[i]) * seconds;
        const double tolerance = 2e-6 * std::max(1.0, std::fabs(want[i]));
        if (std::fabs(want[i] - got) > tolerance && bad++ < 5)
            ADD_FAILURE() << "value " << i << ": " << got << " vs " << want[i];
    }
    EXPECT_EQ(bad, 0u);
}

TEST_F(FcsManifest, StoredValuesEqualFlowIOTruth) {
    expectWholeFile(fcsDir() / "flowio/fcs_files__data1.fcs",
                    fcsDir() / "flowio/truth__data1_original_events.npy", true);
}

TEST_F(FcsManifest, GainAndLogScalingEqualFlowIOTruth) {
    expectWholeFile(fcsDir() / "flowio/fcs_files__data1.fcs",
                    fcsDir() / "flowio/truth__data1_preprocessed.npy", false);
}

TEST_F(FcsManifest, TimestepScalingEqualsFlowIOTruth) {
    expectWholeFile(fcsDir() / "flowio/fcs_files__B01_KC-A-W---91-US.fcs",
                    fcsDir() / "flowio/truth__B01_KC-A-W---91-US_preprocessed_events.npy", false);
}

TEST_F(FcsManifest, FloatEventsEqualFlowKitDump) {
    expectWholeFile(fcsDir() / "flowkit/test_comp_example.fcs",
                    fcsDir() / "flowkit/test_comp_example.npy", true);
}

TEST_F(FcsManifest, SpilloverNamesEqualFlowKitCsv) {
    // FlowKit's CSV holds another matrix for the same channels: the names must agree.
    const fs::path csv = fcsDir() / "flowkit/comp_complete_example.csv";
    if (!fs::exists(csv)) GTEST_SKIP() << test::sharedDataMissing(csv);
    const io::Table t = io::readFcs((fcsDir() / "flowkit/test_comp_example.fcs").string());
    ASSERT_TRUE(t.spillover.has_value());
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    std::vector<std::string> names;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) names.push_back(trimmed(cell));
    ASSERT_EQ(names, t.spillover->channels);
    ASSERT_EQ(t.spillover->matrix.rows, names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        EXPECT_FLOAT_EQ(t.spillover->matrix.at(i, i), 1.0f);
        EXPECT_GE(t.findChannel(names[i]), 0) << names[i];
    }
}

TEST_F(FcsManifest, EveryReadableFileWritesAndReadsBackEqual) {
    const fs::path out = fs::temp_directory_path() /
                         ("sepal_conformance_roundtrip_" + std::to_string(::getpid()) + ".fcs");
    for (const auto& f : manifest["files"]) {
        if (f["datasets"].is_null() || !f["must_fail"].is_null()) continue;
        for (size_t d = 0; d < f["datasets"].size(); ++d) {
            SCOPED_TRACE(pathOf(f) + " data set " + std::to_string(d));
            const io::Table t = io::readFcs(pathOf(f), {.dataset = d});
            io::writeFcs(out.string(), t);
            const io::Table back = io::readFcs(out.string());
            // Only what the original already had (the spillover keyword may be renamed).
            auto tail = [](const std::string& w) { return w.substr(w.find(':') + 1); };
            for (const auto& w : back.warnings) {
                bool known = false;
                for (const auto& o : t.warnings) known = known || tail(o) == tail(w);
                EXPECT_TRUE(known) << w;
            }
            ASSERT_EQ(back.channels.size(), t.channels.size());
            for (size_t c = 0; c < t.channels.size(); ++c) {
                EXPECT_EQ(back.channels[c].name, t.channels[c].name);
                EXPECT_EQ(back.channels[c].marker, t.channels[c].marker);
            }
            EXPECT_EQ(back.values.values, t.values.values);
            EXPECT_EQ(back.spillover.has_value(), t.spillover.has_value());
            if (t.spillover) EXPECT_EQ(back.spillover->matrix.values, t.spillover->matrix.values);
        }
    }
    fs::remove(out);
}

}  // namespace
}  // namespace sepal
