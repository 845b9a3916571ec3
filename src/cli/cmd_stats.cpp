// sepal-cli stats: differential abundance of populations between conditions, from the counts
// per sample and population (populations.csv) and the samples' metadata, and differential state
// of the state markers from the samples' medians (sample_medians.csv).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "cli/study_options.h"
#include "core/common/error.h"
#include "core/common/text.h"
#include "core/pipeline/sample_filter.h"
#include "core/pipeline/sample_metadata.h"
#include "core/stats/abundance_table.h"
#include "core/stats/sample_median_table.h"
#include "core/stats/study_files.h"
#include "core/stats/study_statistics.h"

namespace sepal::cli {
namespace {

struct StatsArgs {
    StudyOptions study;
    StudyTables tables;
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

/// " (type!=reference: 2 left out: Ref_b1, Ref_b2)", or "" when every sample is compared.
std::string leftOut(const std::vector<std::string>& all, const std::vector<std::string>& compared,
                    const std::string& filter) {
    std::vector<std::string> out;
    for (const auto& s : all)
        if (std::find(compared.begin(), compared.end(), s) == compared.end()) out.push_back(s);
    if (out.empty()) return "";
    return " (" + filter + ": " + std::to_string(out.size()) + " left out: " + commaJoined(out) +
           ")";
}

/// Reads the tables, compares the conditions and writes the results and pictures.
void runStudy(const StudyOptions& o, const StudyTables& t) {
    stats::StudyRequest request;
    request.samples = parseSampleFilter(o.samples, "--samples");
    request.formula = o.design;
    request.contrast = o.contrast;
    request.references = parseReferences(o.references);
    request.block = o.block;
    request.method = o.method;
    request.stateMarkers = o.stateMarkers;
    request.minCells = o.minCells;
    request.minSamples = o.minSamples;
    const stats::AbundanceTable table = stats::readAbundanceTable(t.counts);
    std::optional<stats::SampleMedianTable> medians;
    if (!t.medians.empty()) medians = stats::readSampleMedians(t.medians);
    const SampleMetadata metadata = readSampleMetadata(o.metadata);
    std::vector<std::string> readFiles = t.readFiles;
    for (const auto& f : {t.counts, t.medians, o.metadata}) readFiles.push_back(f);
    const stats::StudyFiles files = stats::studyFilesIn(t.outDir, readFiles);
    const stats::StudyResult result =
        stats::compareConditions(table, metadata, request, medians ? &*medians : nullptr);
    stats::writeStudyFiles(files, result, table, metadata, o.block, medians.has_value());
    size_t tested = 0, called = 0;
    for (const auto& r : result.abundance) {
        tested += r.tested;
        called += r.tested && r.pAdjusted < 0.05;
    }
    // A filter that leaves nothing to test is said even when quiet: the tables hold no result.
    if (tested == 0 && !result.abundance.empty())
        warn(
            "none of the " + std::to_string(result.abundance.size()) +
            " populations was tested: none has cells in enough of the " +
            std::to_string(result.design.samples.size()) + " samples (--min-samples" +
            (o.minSamples == 0 ? ", by default half of them" : " " + std::to_string(o.minSamples)) +
            ")");
    if (t.quiet) return;
    std::fprintf(stderr,
                 "sepal-cli: note: %s over %zu samples%s: %zu of %zu populations tested, %zu "
                 "differ in abundance at FDR 0.05; wrote %s, %s%s\n",
                 result.design.contrastText.c_str(), result.design.samples.size(),
                 leftOut(table.samples, result.design.samples, o.samples).c_str(), tested,
                 result.abundance.size(), called, files.abundance.c_str(), files.design.c_str(),
                 result.design.groupOf.empty() ? "" : (" and " + files.boxPlots).c_str());
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
                 result.state.size(), stateCalled, files.state.c_str(), files.stateHeatmap.c_str());
}

void addStatsCommand(CLI::App& app) {
    auto args = std::make_shared<StatsArgs>();
    CLI::App* cmd = app.add_subcommand(
        "stats",
        "Compare conditions: differential abundance of the populations (cells per sample and "
        "population, from populations.csv) by a negative binomial GLM and likelihood ratio test "
        "(DA-edgeR) or a binomial GLMM (--method GLMM), and with --medians differential state "
        "of the state markers (DS-limma); writes da.csv (population,logFC,logCPM,LR,p_val,p_adj; "
        "the GLMM's population,logFC,z,p_val,p_adj), ds.csv (population,marker,logFC,t,p_val,"
        "p_adj), design.csv, abundance.png and state.png");
    cmd->add_option("--counts", args->tables.counts,
                    "populations.csv of sepal-cli apply or the app")
        ->required();
    cmd->add_option("--medians", args->tables.medians,
                    "sample_medians.csv of sepal-cli apply or the app: also test differential "
                    "state of the state markers (limma on the samples' medians), into ds.csv");
    addStudyOptions(cmd, args->study, true);
    cmd->add_option(
           "--out-dir", args->tables.outDir,
           "folder for da.csv, ds.csv, design.csv and the pictures abundance.png (box plots) and "
           "state.png (the differential state heatmap)")
        ->required();
    cmd->add_flag("-q,--quiet", args->tables.quiet, "no summary on stderr");
    cmd->callback([args] { runStudy(args->study, args->tables); });
}

}  // namespace

static CommandRegistration statsCommand{addStatsCommand};
/// apply --metadata --design --contrast runs the same study on its own counts.
static const bool studyRunnerSet = (studyRunner() = runStudy, true);

}  // namespace sepal::cli
