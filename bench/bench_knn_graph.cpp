// sepal-bench knn-graph: the exact k-NN graph of every point (sepal-cli knn), as JSON lines, with
// the GPU's graph checked against the CPU's on a sample of its rows; sepal-bench trust: the
// trustworthiness of every point (sepal-cli score --sample 0) of a picture: two columns with a
// third of the cells scrambled (torn: nearly every cell loses its neighbours), or the default
// recipe's EmbedSOM picture (what a user scores).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "core/knn/knn_graph.h"
#include "core/metrics/quality.h"
#include "core/pipeline/embed_pipeline.h"
#include "embedsom_bench_data.h"

namespace sepal::bench {

namespace {

struct GraphOptions {
    std::string backend = "auto";
    std::vector<size_t> n{100000};
    std::vector<size_t> d{32};
    size_t k = 15;
    std::string metric = "euclidean";
    std::string data = "clustered";
    int repeats = 3;
    size_t check = 200;  // rows compared with the CPU's exact neighbours
    uint64_t seed = 42;
    std::vector<int> gpus;         // devices the graph spreads over (empty: every visible one)
    std::string picture = "torn";  // trust: the scored picture (torn or embedsom)
};

/// FNV-1a of the graph's indices and distances: equal graphs, equal hashes (compares runs).
std::string graphHash(const KnnGraph& g) {
    uint64_t h = 1469598103934665603ull;
    const auto add = [&](const void* data, size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    };
    add(g.neighbours.data(), g.neighbours.size() * sizeof(uint32_t));
    add(g.distances.data(), g.distances.size() * sizeof(float));
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

/// Rows of the graph (a seeded sample) that differ from the CPU's exact neighbours.
size_t rowsDiffering(const Matrix& points, const KnnGraph& graph, KnnMetric metric, size_t rows,
                     uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> sample;
    for (size_t i = 0; i < rows && i < points.rows; ++i)
        sample.push_back(uint32_t(rng() % points.rows));
    KnnGraph exact = emptyKnnGraph(points.rows, graph.k);
    exactNeighbours(knnRows(points, metric), sample, exact);
    size_t differ = 0;
    for (uint32_t q : sample)
        for (size_t j = 0; j < graph.k; ++j)
            if (exact.neighbours[q * graph.k + j] != graph.neighbours[q * graph.k + j]) {
                ++differ;
                break;
            }
    return differ;
}

void runGraph(const GraphOptions& o) {
    BackendOptions options;
    options.graphDevices = o.gpus;
    Backend backend = makeBackend(o.backend, options);
    const KnnMetric metric = knnMetricNamed(o.metric);
    for (size_t d : o.d)
        for (size_t n : o.n) {
            const std::vector<float> x = benchPoints(o.data, n, d, o.seed + d);
            Matrix points(n, d);
            std::copy(x.begin(), x.end(), points.values.begin());
            KnnGraph graph;
            const Timings t =
                timeRepeated(o.repeats, [&] { graph = backend.graph->build(points, o.k, metric); });
            nlohmann::json j = nlohmann::json::parse(contextJson());
            j["bench"] = "knn-graph";
            j["backend"] = backend.name;
            j["metric"] = o.metric;
            j["data"] = o.data;
            j["n"] = n;
            j["d"] = d;
            j["k"] = o.k;
            j["repeats"] = o.repeats;
            j["median_s"] = t.median;
            j["min_s"] = t.min;
            j["redone_on_cpu"] = backend.graph->redone();
            j["looked_again"] = backend.graph->lookedAgain();
            j["pairs_compared"] = backend.graph->pairsCompared();  // below 1: parts left out
            for (const auto& [stage, seconds] : backend.graph->stageSeconds())
                j["stage_s"][stage] = seconds;                    // the last build's
            j["pairs_per_s"] = double(n) * double(n) / t.median;  // every pair, as if compared
            j["gpus"] = backend.name == "cuda" ? (o.gpus.empty() ? gpuCount() : o.gpus.size()) : 0;
            j["graph_hash"] = graphHash(graph);
            j["rows_checked"] = o.check;
            j["rows_differing"] = rowsDiffering(points, graph, metric, o.check, o.seed);
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
        }
}

void addGraph(CLI::App& app) {
    auto o = std::make_shared<GraphOptions>();
    CLI::App* sub = app.add_subcommand(
        "knn-graph", "Exact k-NN graph of every point (sepal-cli knn), checked on sampled rows");
    sub->add_option("--backend", o->backend, "cpu, cuda or auto");
    sub->add_option("--n", o->n, "points, a list")->delimiter(',');
    sub->add_option("--d", o->d, "dimensions, a list")->delimiter(',');
    sub->add_option("--k", o->k, "neighbours");
    sub->add_option("--metric", o->metric, "euclidean, cosine, pearson or manhattan");
    sub->add_option("--data", o->data, "normal or clustered");
    sub->add_option("--repeats", o->repeats, "timed runs after a warm-up (0: one, no warm-up)");
    sub->add_option("--check", o->check, "rows compared with the CPU's exact neighbours");
    sub->add_option("--seed", o->seed, "data seed");
    sub->add_option("--gpus", o->gpus, "CUDA devices to spread over, a list (default: all)")
        ->delimiter(',');
    sub->callback([o] { runGraph(*o); });
}

void runTrust(const GraphOptions& o) {
    Backend backend = makeBackend(o.backend);
    for (size_t d : o.d)
        for (size_t n : o.n) {
            const std::vector<float> x = benchPoints(o.data, n, d, o.seed + d);
            std::vector<float> low(2 * n);
            if (o.picture == "embedsom") {
                // What a user scores: the default recipe's picture of the points.
                Matrix points(n, d);
                std::copy(x.begin(), x.end(), points.values.begin());
                const EmbedResult e =
                    embedMatrix(points, EmbedSettings{}, *backend.projector, *backend.search);
                std::copy(e.xy.values.begin(), e.xy.values.end(), low.begin());
            } else {
                // The first two columns, the second scrambled for a third of the points.
                for (size_t i = 0; i < n; ++i) {
                    low[2 * i] = x[i * d];
                    low[2 * i + 1] = x[(i % 3 == 0 ? (i * 7919) % n : i) * d + (d > 1 ? 1 : 0)];
                }
            }
            QualityParams params;
            params.k = o.k;
            params.sampleSize = 0;
            QualityScores scores;
            const Timings t = timeRepeated(o.repeats, [&] {
                scores = backend.quality->score(x.data(), n, d, low.data(), params);
            });
            nlohmann::json j = nlohmann::json::parse(contextJson());
            j["bench"] = "trust";
            j["backend"] = backend.name;
            j["data"] = o.data;
            j["n"] = n;
            j["d"] = d;
            j["k"] = o.k;
            j["picture"] = o.picture;
            j["repeats"] = o.repeats;
            j["median_s"] = t.median;
            j["min_s"] = t.min;
            j["trustworthiness"] = scores.trustworthiness;
            j["knn_preservation"] = scores.knnPreservation;
            if (scores.pairsCompared >= 0) j["pairs_compared"] = scores.pairsCompared;
            for (const auto& [stage, seconds] : scores.stageSeconds) j["stage_s"][stage] = seconds;
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
        }
}

void addTrust(CLI::App& app) {
    auto o = std::make_shared<GraphOptions>();
    o->k = 10;
    CLI::App* sub = app.add_subcommand(
        "trust", "Trustworthiness of every point (sepal-cli score --sample 0) of a picture");
    sub->add_option("--picture", o->picture,
                    "torn (two columns, a third scrambled) or embedsom (the default recipe's)")
        ->check(CLI::IsMember({"torn", "embedsom"}));
    sub->add_option("--backend", o->backend, "cpu, cuda or auto");
    sub->add_option("--n", o->n, "points, a list")->delimiter(',');
    sub->add_option("--d", o->d, "dimensions, a list")->delimiter(',');
    sub->add_option("--k", o->k, "neighbours");
    sub->add_option("--data", o->data, "normal or clustered");
    sub->add_option("--repeats", o->repeats, "timed runs after a warm-up");
    sub->add_option("--seed", o->seed, "data seed");
    sub->callback([o] { runTrust(*o); });
}

BenchRegistration knnGraphBench{addGraph};
BenchRegistration trustBench{addTrust};

}  // namespace
}  // namespace sepal::bench
