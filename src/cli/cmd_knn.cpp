// sepal-cli knn: the exact k-nearest-neighbour graph of every event, in the transformed space
// embed uses; under mpirun the ranks share the queries and rank 0 writes the graph.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "backend/backends.h"
#include "cli/cli_progress.h"
#include "cli/cli_ranks.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/stopwatch.h"
#include "core/common/threads.h"
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

/// The rows a graph holds (a share of a run) as bytes: the indices, then the distances.
std::string rowsAsBytes(const KnnGraph& share) {
    std::string bytes(share.neighbours.size() * (sizeof(uint32_t) + sizeof(float)), '\0');
    std::memcpy(bytes.data(), share.neighbours.data(), share.neighbours.size() * sizeof(uint32_t));
    std::memcpy(bytes.data() + share.neighbours.size() * sizeof(uint32_t), share.distances.data(),
                share.distances.size() * sizeof(float));
    return bytes;
}

/// Puts rows [first, last) sent as rowsAsBytes into the whole graph.
void rowsFromBytes(const std::string& bytes, size_t first, size_t last, KnnGraph& graph) {
    const size_t cells = (last - first) * graph.k;
    if (bytes.size() != cells * (sizeof(uint32_t) + sizeof(float)))
        throw InputError("k-NN graph: a rank sent " + std::to_string(bytes.size()) +
                         " bytes for rows " + std::to_string(first) + " to " +
                         std::to_string(last));
    std::memcpy(graph.neighbours.data() + first * graph.k, bytes.data(), cells * sizeof(uint32_t));
    std::memcpy(graph.distances.data() + first * graph.k, bytes.data() + cells * sizeof(uint32_t),
                cells * sizeof(float));
}

void runKnn(const KnnArgs& a, const Ranks& ranks) {
    setThreads(a.threads);
    const KnnMetric metric = knnMetricNamed(a.metric);
    const bool csv = a.out.size() >= 4 && a.out.compare(a.out.size() - 4, 4, ".csv") == 0;
    const bool bin = a.out.size() >= 4 && a.out.compare(a.out.size() - 4, 4, ".bin") == 0;
    const bool quiet = a.quiet || !ranks.root();
    // Under mpirun every rank reads every event and finds the neighbours of its share of them,
    // on its share of its machine's GPUs; rank 0 gathers the shares in rank order. Collectives
    // run only between `together` calls, so a rank's failure leaves none of them waiting.
    KnnGraph graph;  // rank 0: the whole graph; the others: their share
    std::string share;
    size_t n = 0, redone = 0;
    double seconds = 0;
    std::string device;
    const auto shareOf = [&](size_t rank) {
        const size_t of = size_t(ranks.size());
        return std::make_pair(n * rank / of, n * (rank + 1) / of);
    };
    ranks.together([&] {
        if (!csv && !bin) throw InputError("--out " + a.out + ": name a .csv or a .bin file");
        std::vector<std::string> readFiles = a.inputs;
        readFiles.push_back(a.prepare.transform);
        io::refuseOverwritingInput(a.out, readFiles, "--out");
        const PreparedInput input = prepareInputs(a.inputs, a.prepare);
        note(quiet, std::to_string(input.points.rows) + " events, " +
                        std::to_string(input.points.cols) + " columns");
        n = input.points.rows;
        const auto [first, last] = shareOf(size_t(ranks.rank()));
        BackendOptions options;
        if (a.backend != "cpu" && a.backend != "reference")
            options.graphDevices = ranks.gpusOfThisRank(gpuCount());
        Backend backend = makeBackend(a.backend, options);
        const auto start = StageClock::now();
        const ThreadsForLoad threads;  // beside busy programs, the cores they leave free
        graph = backend.graph->buildRows(input.points, a.k, metric, first, last);
        seconds = secondsSince(start);
        redone = backend.graph->redone();
        device = backend.name == "cuda" ? "GPU" : "CPU";
        if (ranks.root() && ranks.size() > 1) {
            // Rank 0 holds the whole graph: its share found, the others' received below.
            KnnGraph whole = emptyKnnGraph(n, a.k);
            std::copy(graph.neighbours.begin(), graph.neighbours.end(), whole.neighbours.begin());
            std::copy(graph.distances.begin(), graph.distances.end(), whole.distances.begin());
            graph = std::move(whole);
        }
        if (!ranks.root()) share = rowsAsBytes(graph);
    });
    redone = ranks.sum(redone);
    // Rank 0 receives every share even when one is wrong (collect), then says so with the rest.
    std::string failure;
    size_t sender = 0;
    try {
        ranks.collect(share, [&](const std::string& bytes) {
            const auto [from, to] = shareOf(sender);
            if (sender++ > 0) rowsFromBytes(bytes, from, to, graph);
        });
    } catch (const std::exception& e) {
        failure = e.what();
    }
    ranks.together([&] {
        if (!failure.empty()) throw InputError(failure);
        if (!ranks.root()) return;
        char line[200];
        std::snprintf(line, sizeof line, "%zu neighbours of every event (%s) in %.3f s on the %s",
                      a.k, a.metric.c_str(), seconds, device.c_str());
        note(quiet, line + (ranks.size() > 1 ? " (" + std::to_string(ranks.size()) +
                                                   " ranks, the time of rank 0's share)"
                                             : std::string()));
        if (redone > 0)
            note(quiet, std::to_string(redone) +
                            " events' neighbours were found on the CPU (too close to call in "
                            "single precision, or beyond the GPU kernels' limits)");
        writeKnnGraph(a.out, graph);
    });
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
    cmd->callback([args] { runKnn(*args, Ranks()); });
}

CommandRegistration knnCommand{addKnnCommand};

}  // namespace
}  // namespace sepal::cli
