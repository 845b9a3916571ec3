// sepal-bench train: the time of one step (or one epoch) of each trainer, as JSON lines.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "core/knn/nearest_search.h"
#include "core/train/init.h"
#include "core/train/lloyd_trainer.h"
#include "core/train/trainer_factory.h"

namespace sepal::bench {

namespace {

struct TrainOptions {
    std::vector<size_t> g{64, 256, 1024};
    std::vector<size_t> n{100000, 1000000};
    size_t d = 16;
    std::vector<std::string> trainers{"som",   "batchsom", "plsom", "online-kmeans",
                                      "lloyd", "graph",    "tsne",  "umap"};
    size_t searchBatch = 32;
    int repeats = 3;
    uint64_t seed = 1;
};

// Gaussian blobs around 20 centres: the clustered data trainers meet in cytometry.
std::vector<float> blobData(size_t n, size_t d, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    constexpr size_t kClusters = 20;
    std::vector<float> centres(kClusters * d);
    for (float& c : centres) c = 4.0f * normal(rng);
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i) {
        const size_t c = static_cast<size_t>(rng() % kClusters);
        for (size_t t = 0; t < d; ++t) x[i * d + t] = centres[c * d + t] + normal(rng);
    }
    return x;
}

bool isLayout(const std::string& t) {
    return t == "graph" || t == "tsne" || t == "umap";
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// The JSON parameters of a trainer for the benchmark (the online trainers share searchBatch).
nlohmann::json paramsFor(const std::string& t, const TrainOptions& o) {
    nlohmann::json p = nlohmann::json::object();
    p["seed"] = o.seed;
    if (t == "som" || t == "plsom" || t == "online-kmeans") p["searchBatch"] = o.searchBatch;
    return p;
}

// Points (data trainers) or iterations (layouts) one step handles, for throughput figures.
size_t workOfStep(const std::string& t, size_t n) {
    if (t == "som" || t == "plsom" || t == "online-kmeans") return 4096;
    if (t == "batchsom") return std::min<size_t>(n, 65536);
    if (t == "lloyd") return n;
    if (t == "graph") return 5;
    if (t == "tsne") return 10;
    return 1;  // umap: one epoch
}

void runOne(const std::string& t, size_t g, size_t n, const TrainOptions& o,
            const std::vector<float>& x, NearestSearch& search) {
    const TrainingData data{x.data(), n, o.d};
    LandmarkModel base;
    InitParams ip;
    ip.method = InitMethod::Sample;
    ip.g = g;
    ip.seed = o.seed;
    initModel(base, data, ip);
    std::vector<double> times;
    double first = 0.0;
    for (int r = 0; r < o.repeats; ++r) {
        LandmarkModel m = base;
        if (t == "lloyd") {
            const auto a = std::chrono::steady_clock::now();
            lloydStep(m, data, search);
            times.push_back(seconds(a, std::chrono::steady_clock::now()));
            continue;
        }
        auto trainer = makeTrainer(t, paramsFor(t, o), search);
        // The first step also builds what the trainer keeps (similarities, graph, radius).
        auto a = std::chrono::steady_clock::now();
        trainer->step(m, data);
        auto b = std::chrono::steady_clock::now();
        if (r == 0) first = seconds(a, b);
        a = std::chrono::steady_clock::now();
        trainer->step(m, data);
        times.push_back(seconds(a, std::chrono::steady_clock::now()));
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "train";
    j["trainer"] = t;
    j["g"] = g;
    j["d"] = o.d;
    if (!isLayout(t)) j["n"] = n;
    const size_t work = workOfStep(t, n);
    j["step_s"] = median;
    if (t != "lloyd") j["first_step_s"] = first;
    j[isLayout(t) ? "iterations_per_step" : "points_per_step"] = work;
    if (!isLayout(t)) j["points_per_s"] = static_cast<double>(work) / median;
    if (t == "som" || t == "plsom" || t == "online-kmeans") j["search_batch"] = o.searchBatch;
    j["repeats"] = o.repeats;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

void runTrain(const TrainOptions& o) {
    auto search = makeCpuNearestSearch();
    bool layoutsDone = false;
    for (size_t n : o.n) {
        const std::vector<float> x = blobData(n, o.d, o.seed);
        for (size_t g : o.g) {
            if (g > n) continue;
            for (const auto& t : o.trainers) {
                if (isLayout(t) && layoutsDone) continue;
                runOne(t, g, n, o, x, *search);
            }
        }
        layoutsDone = true;  // layouts see landmarks only: once per g is enough
    }
}

void addTrain(CLI::App& app) {
    auto opts = std::make_shared<TrainOptions>();
    CLI::App* sub = app.add_subcommand(
        "train", "Time one step of each trainer (one epoch for lloyd) on clustered data");
    sub->add_option("--g", opts->g, "landmark counts")->delimiter(',');
    sub->add_option("--n", opts->n, "training point counts")->delimiter(',');
    sub->add_option("--d", opts->d, "dimensions");
    sub->add_option("--trainers", opts->trainers,
                    "som,batchsom,plsom,online-kmeans,lloyd,graph,tsne,umap")
        ->delimiter(',');
    sub->add_option(
        "--search-batch", opts->searchBatch,
        "winners found per search call by the online trainers (1 = strictly online; 32 = default)");
    sub->add_option("--repeats", opts->repeats, "timed repeats (the median is reported)");
    sub->add_option("--seed", opts->seed, "data and trainer seed");
    sub->callback([opts] { runTrain(*opts); });
}

const BenchRegistration trainBench{addTrain};

}  // namespace

}  // namespace sepal::bench
