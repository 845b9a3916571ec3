// sepal-bench io: FCS (float32, 16-bit integer) and CSV read throughput on generated files, with
// a warm page cache, as JSON lines.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_reader.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_reader.h"
#include "core/io/fcs_writer.h"
#include "embedsom_bench_data.h"

namespace sepal::bench {

namespace {

struct IoOptions {
    double sizeMb = 1024;
    std::string dir;
    int repeats = 5;
    size_t parameters = 16;
    uint64_t seed = 42;
};

/// Cytometry-like values: mostly small, a long right tail, with two decimals.
float sampleValue(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double v = 150.0 * std::sinh(4.0 * u(rng)) - 30.0;
    return static_cast<float>(std::round(v * 100) / 100);
}

io::Table makeTable(size_t events, size_t parameters, uint64_t seed) {
    io::Table t;
    for (size_t j = 0; j < parameters; ++j)
        t.channels.push_back({"P" + std::to_string(j + 1), "", 262144, 32});
    t.values = Matrix(events, parameters);
    std::mt19937_64 rng(seed);
    for (float& v : t.values.values) v = sampleValue(rng);
    return t;
}

/// A minimal FCS 3.1 file with 16-bit unsigned integers ($DATATYPE I, $PnB 16, $PnR 65536).
void writeFcsInt16(const std::string& path, size_t events, size_t parameters, uint64_t seed) {
    const size_t dataBytes = events * parameters * 2;
    auto textFor = [&](size_t beginData) {
        std::string text = "/$BEGINANALYSIS/0/$ENDANALYSIS/0/$BEGINSTEXT/0/$ENDSTEXT/0/";
        char number[32];
        std::snprintf(number, sizeof number, "%020zu", beginData);
        text += std::string("$BEGINDATA/") + number + "/";
        std::snprintf(number, sizeof number, "%020zu", beginData + dataBytes - 1);
        text += std::string("$ENDDATA/") + number + "/";
        text += "$BYTEORD/1,2,3,4/$DATATYPE/I/$MODE/L/$NEXTDATA/0/$PAR/" +
                std::to_string(parameters) + "/$TOT/" + std::to_string(events) + "/";
        for (size_t j = 1; j <= parameters; ++j) {
            const std::string p = "$P" + std::to_string(j);
            text +=
                p + "N/P" + std::to_string(j) + "/" + p + "B/16/" + p + "E/0,0/" + p + "R/65536/";
        }
        return text;
    };
    const size_t textStart = 58;
    const size_t textLength = textFor(0).size();
    const size_t dataStart = textStart + textLength;
    const std::string text = textFor(dataStart);
    auto offset = [](size_t v) {
        char field[16];
        if (v > 99999999) return std::string(8, ' ');
        std::snprintf(field, sizeof field, "%8zu", v);
        return std::string(field);
    };
    std::string header = "FCS3.1    " + offset(textStart) + offset(textStart + text.size() - 1) +
                         offset(dataStart) + offset(dataStart + dataBytes - 1) + offset(0) +
                         offset(0);
    io::AtomicFile file(path);
    file.write(header);
    file.write(text);
    std::mt19937_64 rng(seed);
    std::vector<uint16_t> block;
    const size_t blockValues = size_t{1} << 20;
    for (size_t written = 0; written < events * parameters; written += block.size()) {
        block.resize(std::min(blockValues, events * parameters - written));
        for (auto& v : block) v = static_cast<uint16_t>(rng() & 0xFFFF);
        file.write(block.data(), block.size() * 2);
    }
    file.commit();
}

void report(const std::string& format, const std::string& path, size_t events, size_t parameters,
            size_t payloadBytes, const Timings& t, int repeats) {
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "io";
    j["format"] = format;
    j["events"] = events;
    j["parameters"] = parameters;
    j["bytes"] = payloadBytes;
    j["file_bytes"] = std::filesystem::file_size(path);
    j["repeats"] = repeats;
    j["seconds_median"] = t.median;
    j["seconds_min"] = t.min;
    j["seconds_max"] = t.max;
    j["gb_per_s"] = static_cast<double>(payloadBytes) / t.median / 1e9;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

void runIo(const IoOptions& o) {
    namespace fs = std::filesystem;
    const fs::path dir = o.dir.empty() ? fs::temp_directory_path() : fs::path(o.dir);
    const size_t target = static_cast<size_t>(o.sizeMb * 1024 * 1024);
    const size_t d = o.parameters;

    {  // float32 FCS: bytes are the DATA segment
        const size_t events = std::max<size_t>(1, target / (d * 4));
        const std::string path = (dir / "sepal_bench_io_f32.fcs").string();
        {
            const io::Table t = makeTable(events, d, o.seed);
            io::writeFcs(path, t);
        }
        const Timings t = timeRepeated(o.repeats, [&] { io::readFcs(path); });
        report("fcs-f32", path, events, d, events * d * 4, t, o.repeats);
        fs::remove(path);
    }
    {  // 16-bit integer FCS
        const size_t events = std::max<size_t>(1, target / (d * 2));
        const std::string path = (dir / "sepal_bench_io_i16.fcs").string();
        writeFcsInt16(path, events, d, o.seed + 1);
        const Timings t = timeRepeated(o.repeats, [&] { io::readFcs(path); });
        report("fcs-i16", path, events, d, events * d * 2, t, o.repeats);
        fs::remove(path);
    }
    {  // CSV: bytes are the whole file; about 8 characters per value
        const std::string path = (dir / "sepal_bench_io.csv").string();
        const size_t events = std::max<size_t>(1, target / (d * 8));
        {
            const io::Table t = makeTable(events, d, o.seed + 2);
            io::writeCsv(path, t);
        }
        const size_t bytes = fs::file_size(path);
        const Timings t = timeRepeated(o.repeats, [&] { io::readCsv(path); });
        report("csv", path, events, d, bytes, t, o.repeats);
        fs::remove(path);
    }
}

void addIo(CLI::App& app) {
    auto o = std::make_shared<IoOptions>();
    auto* cmd =
        app.add_subcommand("io", "FCS (float32, int16) and CSV read throughput, warm page cache");
    cmd->add_option("--size-mb", o->sizeMb, "Size of each generated file in MiB")
        ->capture_default_str();
    cmd->add_option("--dir", o->dir,
                    "Folder for the generated files (default: the temporary folder)");
    cmd->add_option("--repeats", o->repeats, "Timed reads per file (after one warm-up read)")
        ->capture_default_str();
    cmd->add_option("--parameters", o->parameters, "Columns per file")->capture_default_str();
    cmd->callback([o] { runIo(*o); });
}

}  // namespace

static BenchRegistration ioBench{addIo};

}  // namespace sepal::bench
