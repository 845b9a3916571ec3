// sepal-cli apply: project many files through a saved landmark model, one output per file.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>

#include "backend/backends.h"
#include "cli/cli_export.h"
#include "cli/cli_populations.h"
#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "core/cluster/metaclusters.h"
#include "core/cluster/population_tally.h"
#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/model/model_file.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/samples.h"
#include "core/raster/png.h"
#include "core/transform/channel_label.h"
#include "core/transform/pipeline.h"

namespace sepal::cli {
namespace {

struct ApplyArgs {
    std::string model;
    std::vector<std::string> inputs;
    std::string outDir;
    std::string format = "csv";
    std::string backend = "cpu";
    std::string sampleColumn = "sample";
    ExportOptions exports;
    int threads = 0;
    bool force = false;
    std::string heatmap;
    bool quiet = false;
};

/// True when `output` exists and was written after `input` was last changed.
bool newerThan(const std::string& output, const std::string& input) {
    std::error_code ec1, ec2;
    const auto out = std::filesystem::last_write_time(output, ec1);
    const auto in = std::filesystem::last_write_time(input, ec2);
    return !ec1 && !ec2 && out > in;
}

void runApply(const ApplyArgs& a) {
    setThreads(a.threads);
    if (a.format != "csv" && a.format != "fcs")
        throw InputError("--format " + a.format + ": use csv or fcs");
    const LoadedModel loaded = loadModel(a.model);
    const TransformPipeline pipeline = TransformPipeline::fromJson(loaded.transform);
    if (pipeline.columns() != loaded.columns)
        throw InputError(a.model + ": the transform's columns differ from the model's; re-save it");
    std::error_code ec;
    std::filesystem::create_directories(a.outDir, ec);
    if (ec) throw InputError("--out-dir " + a.outDir + ": cannot create it (" + ec.message() + ")");
    Backend backend = makeBackend(a.backend);
    std::vector<std::string> readFiles = a.inputs;
    readFiles.push_back(a.model);
    std::vector<std::string> written;
    size_t files = 0;
    // The model's populations label every cell, and are counted over all inputs.
    const std::vector<int32_t> groupOfLandmark =
        groupsOfLandmarks(loaded.populations, loaded.model.count());
    const std::vector<std::string> populationNamesOfModel = populationNames(loaded.populations);
    std::optional<PopulationTally> tally;
    const std::string countsPath = (std::filesystem::path(a.outDir) / "populations.csv").string();
    const std::string mediansPath = (std::filesystem::path(a.outDir) / "medians.csv").string();
    if (!a.heatmap.empty() && loaded.populations.empty())
        throw InputError("--heatmap: the model " + a.model +
                         " has no populations (embed --metaclusters K makes them)");
    io::refuseOverwritingInput(a.heatmap, readFiles, "--heatmap");
    if (!loaded.populations.empty()) {
        io::refuseOverwritingInput(countsPath, readFiles, "populations.csv in --out-dir");
        io::refuseOverwritingInput(mediansPath, readFiles, "medians.csv in --out-dir");
    }
    for (size_t f = 0; f < a.inputs.size(); ++f) {
        const std::string& path = a.inputs[f];
        note(a.quiet,
             "[" + std::to_string(f + 1) + "/" + std::to_string(a.inputs.size()) + "] " + path);
        std::string out =
            (std::filesystem::path(a.outDir) / (sampleName(path) + "." + a.format)).string();
        // Two inputs with one name (in different folders) must not overwrite each other.
        if (std::find(written.begin(), written.end(), out) != written.end())
            out = (std::filesystem::path(a.outDir) /
                   (sampleName(path) + "_" + std::to_string(f + 1) + "." + a.format))
                      .string();
        // Resuming: an output newer than its input and the model is left as it is (the
        // populations still count its cells).
        const bool upToDate =
            !a.force && !a.exports.perPopulation && newerThan(out, path) && newerThan(out, a.model);
        if (upToDate && loaded.populations.empty()) {
            note(a.quiet, out + " is up to date: skipped (--force writes it again)");
            written.push_back(out);
            continue;
        }
        io::Table table = readInput(path);
        std::vector<std::string> available;
        for (const auto& ch : table.channels) available.push_back(ch.name);
        for (const auto& ch : table.channels)
            if (!ch.marker.empty()) available.push_back(ch.marker);
        checkColumns(loaded.columns, available);
        const Matrix points = pipeline.apply(table);
        if (upToDate) {
            const auto codes =
                groupsOfPoints(points, loaded.model, groupOfLandmark, *backend.search);
            if (!tally)
                tally.emplace(populationNamesOfModel, markerNames(table, pipeline.columns()), 1);
            tally->add(sampleName(path), codes, points);
            note(a.quiet, out + " is up to date: counted, not written again (--force writes it)");
            written.push_back(out);
            continue;
        }
        Matrix xy(points.rows, 2);
        const ProjectionReport report = backend.projector->project(
            points.data(), points.rows, points.cols, loaded.model, loaded.params, xy.data());
        if (report.nonFinitePoints > 0)
            note(a.quiet, path + ": " + std::to_string(report.nonFinitePoints) +
                              " events had non-finite values");
        if (!loaded.populations.empty()) {
            const auto codes =
                groupsOfPoints(points, loaded.model, groupOfLandmark, *backend.search);
            setPopulationColumn(table, populationNamesOfModel, codes);
            if (!tally)
                tally.emplace(populationNamesOfModel, markerNames(table, pipeline.columns()), 1);
            tally->add(sampleName(path), codes, points);
        }
        // Each output names its sample, so the files can be pooled later.
        io::LabelColumn sample{a.sampleColumn, {sampleName(path)}, {}};
        sample.codes.assign(table.events(), 0);
        std::erase_if(table.labels,
                      [&](const io::LabelColumn& l) { return l.name == a.sampleColumn; });
        table.labels.push_back(std::move(sample));
        files += writeEmbedded(
                     out, {&table, &xy, pipeline.columns(), &points, a.sampleColumn, readFiles},
                     a.exports, a.quiet)
                     .size();
        written.push_back(out);
    }
    if (tally) {
        tally->writeCounts(countsPath);
        tally->writeMedians(mediansPath);
        files += 2;
        if (!a.heatmap.empty()) {
            raster::writePng(a.heatmap, renderHeatmap(tally->heatmap()));
            ++files;
        }
        note(a.quiet,
             "cells per sample and population: " + countsPath + "; medians: " + mediansPath);
    }
    note(a.quiet, "wrote " + std::to_string(files) + " files to " + a.outDir);
}

void addApplyCommand(CLI::App& app) {
    auto args = std::make_shared<ApplyArgs>();
    CLI::App* cmd = app.add_subcommand(
        "apply",
        "Project files through a saved landmark model (from embed --model); writes one "
        "table per input with EmbedSOM1, EmbedSOM2 and a sample column, and when the model "
        "has populations a population column, populations.csv (cells per sample and "
        "population) and medians.csv (population x marker medians)");
    cmd->add_option("--model", args->model, "model file written by embed --model")->required();
    cmd->add_option("inputs", args->inputs, "FCS, CSV/TSV or points JSON files")->required();
    cmd->add_option("--out-dir", args->outDir, "folder for the outputs (created if missing)")
        ->required();
    cmd->add_option("--format", args->format, "csv or fcs")->capture_default_str();
    addExportOptions(cmd, args->exports);
    cmd->add_option("--sample-column", args->sampleColumn, "name of the sample label column")
        ->capture_default_str();
    cmd->add_option("--backend", args->backend, "cpu, cuda, auto or reference")
        ->capture_default_str();
    cmd->add_option("--threads", args->threads, "CPU threads (0 = all)")->capture_default_str();
    cmd->add_option("--heatmap", args->heatmap,
                    "also draw the populations x markers heatmap (scaled medians, cell counts) "
                    "as PNG (a model with populations)");
    cmd->add_flag("--force", args->force,
                  "write every output again (by default an output newer than its input and the "
                  "model is kept)");
    cmd->add_flag("--quiet,-q", args->quiet, "no progress on stderr");
    cmd->callback([args] { runApply(*args); });
}

CommandRegistration reg{addApplyCommand};

}  // namespace
}  // namespace sepal::cli
