// sepal-cli stats: differential abundance of populations between conditions, from the counts
// per sample and population (populations.csv) and the samples' metadata, and differential state
// of the state markers from the samples' medians (sample_medians.csv).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/input_guard.h"
#include "core/pipeline/sample_metadata.h"
#include "core/raster/png.h"
#include "core/stats/abundance_table.h"
#include "core/stats/sample_median_table.h"
#include "core/stats/study_pictures.h"
#include "core/stats/study_statistics.h"

namespace sepal::cli {
namespace {

struct StatsArgs {
    std::string counts;                   // populations.csv
    std::string medians;                  // sample_medians.csv
    std::string metadata;                 // samples.csv
    std::vector<std::string> references;  // "condition:unstim"
    stats::StudyRequest request;
    std::string outDir;
    bool quiet = false;
};

std::map<std::string, std::string> parseReferences(const std::vector<std::string>& words) {
    std::map<std::string, std::string> out;
    for (const auto& w : words) {
        const size_t colon = w.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == w.size())
            throw InputError("--reference " + w +
                             ": write COLUMN:LEVEL, for example "
                             "condition:unstim");
        out[w.substr(0, colon)] = w.substr(colon + 1);
    }
    return out;
}

void runStats(StatsArgs a) {
    a.request.references = parseReferences(a.references);
    const stats::AbundanceTable table = stats::readAbundanceTable(a.counts);
    std::optional<stats::SampleMedianTable> medians;
    if (!a.medians.empty()) medians = stats::readSampleMedians(a.medians);
    const SampleMetadata metadata = readSampleMetadata(a.metadata);
    std::error_code ec;
    std::filesystem::create_directories(a.outDir, ec);
    if (ec) throw InputError("--out-dir " + a.outDir + ": cannot create it (" + ec.message() + ")");
    const auto in = [&](const char* name) {
        const std::string path = (std::filesystem::path(a.outDir) / name).string();
        io::refuseOverwritingInput(path, {a.counts, a.medians, a.metadata}, "--out-dir");
        return path;
    };
    const std::string da = in("da.csv"), ds = in("ds.csv"), designPath = in("design.csv");
    const std::string boxes = in("abundance.png"), heat = in("state.png");
    const stats::StudyResult result =
        stats::compareConditions(table, metadata, a.request, medians ? &*medians : nullptr);
    stats::writeDesignTable(designPath, result.design);
    stats::writeAbundanceTable(da, result.abundance);
    if (medians) stats::writeStateTable(ds, result.state);
    if (!result.design.groupOf.empty())  // a covariate's slope has no groups to draw
        raster::writePng(boxes, raster::renderBoxPlots(stats::abundanceBoxPlots(
                                    table, result, metadata, a.request.block)));
    if (medians) raster::writePng(heat, raster::renderStateHeatmap(stats::stateHeatmap(result)));
    if (a.quiet) return;
    size_t tested = 0, called = 0;
    for (const auto& r : result.abundance) {
        tested += r.tested;
        called += r.tested && r.pAdjusted < 0.05;
    }
    std::fprintf(stderr,
                 "sepal-cli: note: %s over %zu samples: %zu of %zu populations tested, %zu "
                 "differ in abundance at FDR 0.05; wrote %s, %s%s\n",
                 result.design.contrastText.c_str(), result.design.samples.size(), tested,
                 result.abundance.size(), called, da.c_str(), designPath.c_str(),
                 result.design.groupOf.empty() ? "" : (" and " + boxes).c_str());
    if (!medians) return;
    size_t stateTested = 0, stateCalled = 0;
    for (const auto& r : result.state) {
        stateTested += r.tested;
        stateCalled += r.tested && r.pAdjusted < 0.05;
    }
    std::fprintf(stderr,
                 "sepal-cli: note: differential state of %zu state markers (%s): %zu of %zu "
                 "tests made, %zu differ at FDR 0.05; wrote %s and %s\n",
                 result.stateMarkers.size(), commaJoined(result.stateMarkers).c_str(), stateTested,
                 result.state.size(), stateCalled, ds.c_str(), heat.c_str());
}

void addStatsCommand(CLI::App& app) {
    auto args = std::make_shared<StatsArgs>();
    CLI::App* cmd = app.add_subcommand(
        "stats",
        "Compare conditions: differential abundance of the populations (cells per sample and "
        "population, from populations.csv) by a negative binomial GLM and likelihood ratio test "
        "(DA-edgeR), and with --medians differential state of the state markers (DS-limma); "
        "writes da.csv (population,logFC,logCPM,LR,p_val,p_adj), ds.csv "
        "(population,marker,logFC,t,p_val,p_adj) and design.csv");
    cmd->add_option("--counts", args->counts, "populations.csv of sepal-cli apply or the app")
        ->required();
    cmd->add_option("--medians", args->medians,
                    "sample_medians.csv of sepal-cli apply or the app: also test differential "
                    "state of the state markers (limma on the samples' medians), into ds.csv");
    cmd->add_option("--metadata", args->metadata,
                    "sample metadata CSV: a first column naming each sample (path, file name or "
                    "name without extension), then columns such as condition, patient")
        ->required();
    cmd->add_option("--design", args->request.formula,
                    "metadata columns joined by +, for example \"condition + patient\" (numeric "
                    "columns are covariates, others factors)")
        ->required();
    cmd->add_option("--contrast", args->request.contrast,
                    "what to compare: COLUMN:LEVEL-LEVEL (condition:stim-unstim), COLUMN:LEVEL "
                    "against the reference level, or a covariate's name")
        ->required();
    cmd->add_option("--reference", args->references,
                    "COLUMN:LEVEL, a factor's reference level (default: its first level in "
                    "sorted order, as R)");
    cmd->add_option("--block", args->request.block,
                    "a metadata column whose groups (patients) share a correlation in the "
                    "differential state test; the box plots join each group's samples");
    cmd->add_option("--state-markers", args->request.stateMarkers,
                    "the markers to test for differential state (default: those the catalogue "
                    "calls state markers)")
        ->delimiter(',');
    cmd->add_option("--method", args->request.method, "edgeR")->capture_default_str();
    cmd->add_option("--min-cells", args->request.minCells,
                    "a population is tested when it has this many cells in --min-samples samples")
        ->capture_default_str();
    cmd->add_option("--min-samples", args->request.minSamples, "0: half the samples")
        ->capture_default_str();
    cmd->add_option(
           "--out-dir", args->outDir,
           "folder for da.csv, ds.csv, design.csv and the pictures abundance.png (box plots) and "
           "state.png (the differential state heatmap)")
        ->required();
    cmd->add_flag("-q,--quiet", args->quiet, "no summary on stderr");
    cmd->callback([args] { runStats(*args); });
}

}  // namespace

static CommandRegistration statsCommand{addStatsCommand};

}  // namespace sepal::cli
