// sepal-bench knn: the landmark k-NN alone over the grid of benchmarks.md, as JSON lines.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "embedsom_bench_data.h"

namespace sepal::bench {

namespace {

struct KnnOptions {
    std::string backend = "cpu";
    size_t n = size_t{1} << 20;
    std::vector<size_t> d{4, 16, 32, 64};
    std::vector<size_t> g{64, 256, 1024};
    std::vector<int> k{8, 16, 32, 64};
    std::string data = "normal";
    int repeats = 10;
    uint64_t seed = 42;
    bool headline = false;
};

void runKnn(KnnOptions o) {
    if (o.headline) o.d = {32}, o.g = {256}, o.k = {16};
    Backend backend = makeBackend(o.backend);
    for (size_t d : o.d) {
        const std::vector<float> x = benchPoints(o.data, o.n, d, o.seed + d);
        for (size_t g : o.g) {
            const LandmarkModel model = benchModel(o.data, x, g, d, o.seed + g);
            for (int k : o.k) {
                // k neighbours plus the one EmbedSOM uses for normalisation.
                const size_t kk = static_cast<size_t>(k) < g ? k + 1 : g;
                std::vector<uint32_t> idx(o.n * kk);
                std::vector<float> sq(o.n * kk);
                const Timings t = timeRepeated(o.repeats, [&] {
                    backend.search->search(x.data(), o.n, model.high.data(), g, d, kk, idx.data(),
                                           sq.data());
                });
                nlohmann::json j = nlohmann::json::parse(contextJson());
                j["bench"] = "knn";
                j["backend"] = backend.name;
                j["data"] = o.data;
                j["n"] = o.n;
                j["d"] = d;
                j["g"] = g;
                j["k"] = k;
                j["neighbours_found"] = kk;
                j["repeats"] = o.repeats;
                j["median_s"] = t.median;
                j["min_s"] = t.min;
                j["max_s"] = t.max;
                j["points_per_s"] = static_cast<double>(o.n) / t.median;
                std::printf("%s\n", j.dump().c_str());
                std::fflush(stdout);
            }
        }
    }
}

void addKnn(CLI::App& app) {
    auto o = std::make_shared<KnnOptions>();
    CLI::App* sub = app.add_subcommand("knn", "Landmark k-NN throughput, benchmarks.md grid");
    sub->add_option("--backend", o->backend, "cpu, reference, cuda or auto");
    sub->add_option("--n", o->n, "points (default 2^20)");
    sub->add_option("--d", o->d, "dimensions, a list")->delimiter(',');
    sub->add_option("--g", o->g, "landmark counts, a list")->delimiter(',');
    sub->add_option("--k", o->k, "neighbours, a list (k + 1 are found, at most g)")->delimiter(',');
    sub->add_option("--data", o->data, "normal (N(0,1)) or clustered (Gaussian blobs)");
    sub->add_option("--repeats", o->repeats, "timed runs after a warm-up");
    sub->add_option("--seed", o->seed, "data seed");
    sub->add_flag("--headline", o->headline, "only the headline configuration: d 32, g 256, k 16");
    sub->callback([o] { runKnn(*o); });
}

const BenchRegistration knnBench{addKnn};

}  // namespace

}  // namespace sepal::bench
