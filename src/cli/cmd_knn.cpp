// sepal-cli knn: the exact k-nearest-neighbour graph of every event, in the transformed space
// embed uses.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "backend/backends.h"
#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/knn/knn_graph.h"
#include "core/pipeline/prepare.h"

namespace sepal::cli {
namespace {

struct KnnArgs {
    std::vector<std::string> inputs;
    PrepareOptions prepare;
    std::string out;
    size_t k = 15;
    std::string metric = "euclidean";
    int threads = 0;
    std::string backend = "auto";
    bool quiet = false;
};

void runKnn(const KnnArgs& a) {
    setThreads(a.threads);
    const KnnMetric metric = knnMetricNamed(a.metric);
    const bool csv = a.out.size() >= 4 && a.out.compare(a.out.size() - 4, 4, ".csv") == 0;
    const bool bin = a.out.size() >= 4 && a.out.compare(a.out.size() - 4, 4, ".bin") == 0;
    if (!csv && !bin) throw InputError("--out " + a.out + ": name a .csv or a .bin file");
    std::vector<std::string> readFiles = a.inputs;
    readFiles.push_back(a.prepare.transform);
    io::refuseOverwritingInput(a.out, readFiles, "--out");
    const PreparedInput input = prepareInputs(a.inputs, a.prepare);
    note(a.quiet, std::to_string(input.points.rows) + " events, " +
                      std::to_string(input.points.cols) + " columns");
    Backend backend = makeBackend(a.backend);
    const auto start = std::chrono::steady_clock::now();
    const KnnGraph graph = backend.graph->build(input.points, a.k, metric);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[160];
    std::snprintf(line, sizeof line, "%zu neighbours of every event (%s) in %.3f s on the %s", a.k,
                  a.metric.c_str(), seconds, backend.name == "cuda" ? "GPU" : "CPU");
    note(a.quiet, line);
    if (backend.graph->redone() > 0)
        note(a.quiet, std::to_string(backend.graph->redone()) +
                          " events' neighbours were found on the CPU (too close to call in "
                          "single precision, or beyond the GPU kernels' limits)");
    writeKnnGraph(a.out, graph);
}

void addKnnCommand(CLI::App& app) {
    auto args = std::make_shared<KnnArgs>();
    CLI::App* cmd = app.add_subcommand(
        "knn",
        "The exact k nearest neighbours of every event (itself left out) in the transformed "
        "space embed uses: neighbour_1..K (0-based rows, nearest first, ties by row) and "
        "distance_1..K as CSV, or the binary form of docs/FORMATS.md for a .bin file");
    cmd->add_option("inputs", args->inputs, "FCS, CSV/TSV or points JSON files")->required();
    cmd->add_option("--out", args->out, "the graph: .csv or .bin")->required();
    cmd->add_option("--k", args->k, "neighbours per event")->capture_default_str();
    cmd->add_option("--metric", args->metric, "euclidean, cosine, pearson or manhattan")
        ->capture_default_str();
    cmd->add_option("--columns", args->prepare.columns, "as for embed")->delimiter(',');
    cmd->add_option("--transform", args->prepare.transform, "as for embed")->capture_default_str();
    cmd->add_option("--threads", args->threads, "CPU threads (0 = all)")->capture_default_str();
    cmd->add_option("--backend", args->backend,
                    "cpu, cuda or auto (the GPU when there is one; the same graph)")
        ->capture_default_str();
    cmd->add_flag("--quiet,-q", args->quiet, "no notes on stderr");
    cmd->callback([args] { runKnn(*args); });
}

CommandRegistration reg{addKnnCommand};

}  // namespace
}  // namespace sepal::cli
