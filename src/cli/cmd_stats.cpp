// sepal-cli stats: differential abundance of populations between conditions, from the counts
// per sample and population (populations.csv) and the samples' metadata.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/number_text.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"
#include "core/io/input_guard.h"
#include "core/pipeline/sample_metadata.h"
#include "core/stats/abundance_table.h"
#include "core/stats/edger_da.h"
#include "core/stats/study_design.h"

namespace sepal::cli {
namespace {

struct StatsArgs {
    std::string counts;                   // populations.csv
    std::string metadata;                 // samples.csv
    std::string design;                   // "condition + patient"
    std::string contrast;                 // "condition:stim-unstim"
    std::vector<std::string> references;  // "condition:unstim"
    std::string method = "edgeR";
    size_t minCells = 3;
    size_t minSamples = 0;
    std::string outDir;
    bool quiet = false;
};

// A number as the tables write it, read back as the same double; NA when not tested.
std::string number(double v) {
    return std::isfinite(v) ? exactDecimal(v) : "NA";
}

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

void writeDesign(const std::string& path, const stats::StudyDesign& d) {
    std::string text = "sample";
    for (const auto& c : d.coefficients) text += "," + io::csvField(c);
    text += "\n";
    for (size_t s = 0; s < d.samples.size(); ++s) {
        text += io::csvField(d.samples[s]);
        for (Eigen::Index c = 0; c < d.matrix.cols(); ++c)
            text += "," + number(d.matrix(Eigen::Index(s), c));
        text += "\n";
    }
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

// The tested populations by adjusted p-value (then p-value), the untested ones last.
void writeAbundance(const std::string& path, std::vector<stats::AbundanceResult> results) {
    std::stable_sort(results.begin(), results.end(), [](const auto& a, const auto& b) {
        if (a.tested != b.tested) return a.tested;
        if (!a.tested) return false;
        return std::tie(a.pAdjusted, a.pValue) < std::tie(b.pAdjusted, b.pValue);
    });
    std::string text = "population,logFC,logCPM,LR,p_val,p_adj\n";
    for (const auto& r : results)
        text += io::csvField(r.population) + "," + number(r.logFC) + "," + number(r.logCPM) + "," +
                number(r.LR) + "," + number(r.pValue) + "," + number(r.pAdjusted) + "\n";
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

void runStats(const StatsArgs& a) {
    if (a.method != "edgeR")
        throw InputError("--method " + a.method +
                         ": only edgeR (a negative binomial GLM, DA-edgeR) is built so far");
    const stats::AbundanceTable table = stats::readAbundanceTable(a.counts);
    const SampleMetadata metadata = readSampleMetadata(a.metadata);
    const stats::StudyDesign design = stats::buildStudyDesign(
        metadata, table.samples, a.design, a.contrast, parseReferences(a.references));
    std::error_code ec;
    std::filesystem::create_directories(a.outDir, ec);
    if (ec) throw InputError("--out-dir " + a.outDir + ": cannot create it (" + ec.message() + ")");
    const std::string da = (std::filesystem::path(a.outDir) / "da.csv").string();
    const std::string designPath = (std::filesystem::path(a.outDir) / "design.csv").string();
    for (const auto& out : {da, designPath})
        io::refuseOverwritingInput(out, {a.counts, a.metadata}, "--out-dir");
    stats::EdgeROptions options;
    options.minCells = a.minCells;
    options.minSamples = a.minSamples;
    const auto results = stats::differentialAbundanceEdgeR(table.cells, table.populations,
                                                           design.matrix, design.contrast, options);
    writeDesign(designPath, design);
    writeAbundance(da, results);
    if (a.quiet) return;
    size_t tested = 0, called = 0;
    for (const auto& r : results) {
        tested += r.tested;
        called += r.tested && r.pAdjusted < 0.05;
    }
    std::fprintf(stderr,
                 "sepal-cli: note: %s over %zu samples: %zu of %zu populations tested, %zu "
                 "differ at FDR 0.05; wrote %s and %s\n",
                 design.contrastText.c_str(), design.samples.size(), tested, results.size(), called,
                 da.c_str(), designPath.c_str());
}

void addStatsCommand(CLI::App& app) {
    auto args = std::make_shared<StatsArgs>();
    CLI::App* cmd = app.add_subcommand(
        "stats",
        "Compare conditions: differential abundance of the populations (cells per sample and "
        "population, from populations.csv) by a negative binomial GLM and likelihood ratio test "
        "(DA-edgeR); writes da.csv (population,logFC,logCPM,LR,p_val,p_adj) and design.csv");
    cmd->add_option("--counts", args->counts, "populations.csv of sepal-cli apply or the app")
        ->required();
    cmd->add_option("--metadata", args->metadata,
                    "sample metadata CSV: a first column naming each sample (path, file name or "
                    "name without extension), then columns such as condition, patient")
        ->required();
    cmd->add_option("--design", args->design,
                    "metadata columns joined by +, for example \"condition + patient\" (numeric "
                    "columns are covariates, others factors)")
        ->required();
    cmd->add_option("--contrast", args->contrast,
                    "what to compare: COLUMN:LEVEL-LEVEL (condition:stim-unstim), COLUMN:LEVEL "
                    "against the reference level, or a covariate's name")
        ->required();
    cmd->add_option("--reference", args->references,
                    "COLUMN:LEVEL, a factor's reference level (default: its first level in "
                    "sorted order, as R)");
    cmd->add_option("--method", args->method, "edgeR")->capture_default_str();
    cmd->add_option("--min-cells", args->minCells,
                    "a population is tested when it has this many cells in --min-samples samples")
        ->capture_default_str();
    cmd->add_option("--min-samples", args->minSamples, "0: half the samples")
        ->capture_default_str();
    cmd->add_option("--out-dir", args->outDir, "folder for da.csv and design.csv")->required();
    cmd->add_flag("-q,--quiet", args->quiet, "no summary on stderr");
    cmd->callback([args] { runStats(*args); });
}

}  // namespace

static CommandRegistration statsCommand{addStatsCommand};

}  // namespace sepal::cli
