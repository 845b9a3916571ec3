// sepal-bench cohort: a generated cohort of FCS files through a model with populations, files to
// files as sepal-cli apply does it, with the seconds of each stage (read, transform, project,
// label, write), against reading and writing the same files alone (the I/O limit).

#include <omp.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "core/cluster/metaclusters.h"
#include "core/cluster/population_tally.h"
#include "core/common/stopwatch.h"
#include "core/common/threads.h"
#include "core/demo/demo_data.h"
#include "core/io/fcs_writer.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/export_files.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"

namespace sepal::bench {

namespace {

namespace fs = std::filesystem;

struct CohortOptions {
    size_t files = 8;
    size_t events = 250000;
    std::string dir;
    std::string backend = "cpu";
    size_t metaclusters = 15;
    int threads = 0;
    size_t ioLanes = 4;
    bool keep = false;
};

/// Seconds to read every input and write it again (the copies into `copies`), `lanes` files at
/// a time on threads of their own, as apply's lanes do: the I/O limit of files to files.
double copySeconds(const std::vector<std::string>& inputs, const fs::path& copies, size_t lanes,
                   double& read, double& write) {
    std::vector<double> reads(lanes, 0.0), writes(lanes, 0.0);
    std::vector<std::exception_ptr> errors(lanes);
    const auto lane = [&](size_t w) {
        try {
            for (size_t f = w; f < inputs.size(); f += lanes) {
                auto t = StageClock::now();
                const io::Table table = readInput(inputs[f]);
                reads[w] += secondsSince(t);
                t = StageClock::now();
                io::writeFcs((copies / ("copy" + std::to_string(f) + ".fcs")).string(), table);
                writes[w] += secondsSince(t);
            }
        } catch (...) {
            errors[w] = std::current_exception();
        }
    };
    const auto start = StageClock::now();
    std::vector<std::thread> running;
    for (size_t w = 0; w < lanes; ++w) running.emplace_back(lane, w);
    for (auto& t : running) t.join();
    const double seconds = secondsSince(start);
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    read = write = 0;
    for (size_t w = 0; w < lanes; ++w) read += reads[w], write += writes[w];
    return seconds;
}

/// Each cell's population label, for the export's population column.
PopulationCodes codesFor(const std::vector<int32_t>& codes, const std::vector<std::string>& names) {
    PopulationCodes p;
    p.names = names;
    p.codes = codes;
    return p;
}

void runCohort(const CohortOptions& o) {
    if (o.threads > 0) {
        checkThreadCount(o.threads, "--threads");
        omp_set_num_threads(o.threads);
    }
    const fs::path dir = o.dir.empty() ? fs::temp_directory_path() /
                                             ("sepal_bench_cohort_" + std::to_string(::getpid()))
                                       : fs::path(o.dir);
    fs::create_directories(dir / "in");
    fs::create_directories(dir / "out");
    fs::create_directories(dir / "copies");
    std::vector<std::string> inputs;
    for (size_t f = 0; f < o.files; ++f) {
        inputs.push_back((dir / "in" / ("sample" + std::to_string(f + 1) + ".fcs")).string());
        if (!fs::exists(inputs.back()))
            io::writeFcs(inputs.back(), demo::makeDemoTable(o.events, 100 + f));
    }
    Backend backend = makeBackend(o.backend);

    // The model: the defaults of embed on the first file, with its metaclusters.
    auto start = StageClock::now();
    io::Table first = readInput(inputs.front());
    TransformPipeline pipeline = choosePipeline(first, PrepareOptions{});
    const Matrix firstPoints = fitAndApply(pipeline, first);
    EmbedSettings settings;
    settings.params = defaultEmbedParams(settings.landmarks);
    const LandmarkModel model = trainLandmarks(firstPoints, settings, *backend.search);
    MetaclusterSettings groups;
    groups.k = o.metaclusters;
    groups.weights = landmarkWeights(
        firstPoints, nearestLandmarks(firstPoints, model, *backend.search), model.count());
    const auto ofLandmark = metaclusterLandmarks(model, groups);
    std::vector<std::string> names;
    for (size_t p = 0; p < o.metaclusters; ++p)
        names.push_back("population " + std::to_string(p + 1));
    const double trainSeconds = secondsSince(start);

    // The I/O limit: each file read and written again, nothing else; one file at a time, then
    // ioLanes at a time.
    double ioRead = 0, ioWrite = 0, lanesRead = 0, lanesWrite = 0;
    copySeconds(inputs, dir / "copies", 1, ioRead, ioWrite);
    const size_t lanes = std::clamp<size_t>(o.ioLanes, 1, inputs.size());
    const double lanesSeconds = copySeconds(inputs, dir / "copies", lanes, lanesRead, lanesWrite);

    // Files to files, as apply does it.
    double read = 0, transform = 0, project = 0, label = 0, write = 0;
    size_t cells = 0;
    PopulationTally tally(names, pipeline.columns(), 1);
    start = StageClock::now();
    for (size_t f = 0; f < inputs.size(); ++f) {
        const std::string& path = inputs[f];
        auto t = StageClock::now();
        const io::Table table = readInput(path);
        read += secondsSince(t);
        t = StageClock::now();
        const Matrix points = pipeline.apply(table);
        transform += secondsSince(t);
        t = StageClock::now();
        Matrix xy(points.rows, 2);
        std::vector<uint32_t> nearest(points.rows);
        bool found = false;
        backend.projector->projectFindingNearest(points.data(), points.rows, points.cols, model,
                                                 settings.params, xy.data(), nearest.data(), found);
        project += secondsSince(t);
        t = StageClock::now();
        const auto codes = found ? groupsOfNearest(points, nearest, ofLandmark)
                                 : groupsOfPoints(points, model, ofLandmark, *backend.search);
        tally.add(f, sampleName(path), codes, points);
        label += secondsSince(t);
        t = StageClock::now();
        const PopulationCodes populations = codesFor(codes, names);
        ExportSource source;
        source.tables = std::span<const io::Table>(&table, 1);
        source.xy = &xy;
        source.usedColumns = pipeline.columns();
        source.transformed = &points;
        source.populations = &populations;
        writeExport((dir / "out" / (sampleName(path) + ".fcs")).string(), source, ExportOptions{},
                    inputs);
        write += secondsSince(t);
        cells += points.rows;
    }
    tally.writeCounts((dir / "out" / "populations.csv").string());
    tally.writeMedians((dir / "out" / "medians.csv").string());
    const double total = secondsSince(start);
    const double ioTotal = ioRead + ioWrite;

    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "cohort";
    j["files"] = o.files;
    j["events_per_file"] = o.events;
    j["cells"] = cells;
    j["channels"] = first.channels.size();
    j["embedded_columns"] = pipeline.columns().size();
    j["backend"] = backend.name;
    j["model_train_s"] = trainSeconds;
    j["seconds"] = {{"read", read},   {"transform", transform}, {"project", project},
                    {"label", label}, {"write", write},         {"total", total}};
    j["cells_per_s"] = double(cells) / total;
    j["io_limit"] = {
        {"read_s", ioRead}, {"write_s", ioWrite}, {"cells_per_s", double(cells) / ioTotal}};
    j["io_limit_lanes"] = {{"lanes", lanes},
                           {"seconds", lanesSeconds},
                           {"read_s_summed", lanesRead},
                           {"write_s_summed", lanesWrite},
                           {"cells_per_s", double(cells) / lanesSeconds}};
    j["fraction_of_io_limit"] = ioTotal / total;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    if (!o.keep && o.dir.empty()) fs::remove_all(dir);
}

void addCohort(CLI::App& app) {
    auto o = std::make_shared<CohortOptions>();
    auto* cmd = app.add_subcommand(
        "cohort",
        "a generated cohort of FCS files through a model with populations, files to files "
        "(apply's stages), against reading and writing the same files (the I/O limit)");
    cmd->add_option("--files", o->files, "FCS files in the cohort")->capture_default_str();
    cmd->add_option("--events", o->events, "events per file")->capture_default_str();
    cmd->add_option("--dir", o->dir,
                    "folder for the cohort (kept, and reused when its files exist); default: a "
                    "temporary folder, removed after");
    cmd->add_option("--backend", o->backend, "cpu, cuda or auto")->capture_default_str();
    cmd->add_option("--metaclusters", o->metaclusters, "populations of the model")
        ->capture_default_str();
    cmd->add_option("--threads", o->threads, "CPU threads (0 = all)")->capture_default_str();
    cmd->add_option("--io-lanes", o->ioLanes,
                    "files read and written at once for the second I/O limit (apply's lanes)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--keep", o->keep, "keep the temporary folder");
    cmd->callback([o] { runCohort(*o); });
}

}  // namespace

static BenchRegistration cohortBench{addCohort};

}  // namespace sepal::bench
