// sepal-bench project: EmbedSOM throughput over the grid of benchmarks.md, as JSON lines.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "core/embedsom/projector.h"
#include "embedsom_bench_data.h"

namespace sepal::bench {

namespace {

struct ProjectOptions {
    std::string backend = "cpu";
    std::string kernel = "auto";
    size_t n = 0;  // 0: 2^20, or 2^16 for the slow reference
    std::vector<size_t> d{4, 16, 32, 64};
    std::vector<size_t> g{64, 256, 1024};
    std::vector<int> k{8, 16, 32, 64};
    std::string data = "normal";
    int repeats = 0;  // 0: 10, or 3 for the reference
    uint64_t seed = 42;
    bool headline = false;
    float smooth = 0.0f, adjust = 1.0f;  // EmbedSOM's (the app's default recipe: -2 and 3)
};

nlohmann::json figures(const Timings& t, size_t n) {
    return {{"median_s", t.median},
            {"min_s", t.min},
            {"max_s", t.max},
            {"points_per_s", static_cast<double>(n) / t.median}};
}

void runProject(ProjectOptions o) {
    const bool reference = o.backend == "reference";
    if (o.headline) o.d = {32}, o.g = {256}, o.k = {16};
    const bool defaultN = o.n == 0;
    if (defaultN) o.n = reference ? (size_t{1} << 16) : (size_t{1} << 20);
    if (o.repeats <= 0) o.repeats = reference ? 3 : 10;
    Backend backend = makeBackend(o.backend, BackendOptions{.kernel = o.kernel});
    for (size_t d : o.d) {
        const std::vector<float> x = benchPoints(o.data, o.n, d, o.seed + d);
        for (size_t g : o.g) {
            const LandmarkModel model = benchModel(o.data, x, g, d, o.seed + g);
            for (int k : o.k) {
                if (static_cast<size_t>(k) > g) continue;
                const EmbedParams params{.k = k, .smooth = o.smooth, .adjust = o.adjust};
                std::vector<float> y(2 * o.n);
                ProjectionReport report;
                const Timings total = timeRepeated(o.repeats, [&] {
                    report = backend.projector->project(x.data(), o.n, d, model, params, y.data());
                });
                // The k-NN phase alone (k + 1 neighbours, as the projection looks up).
                const size_t kk = static_cast<size_t>(k) < g ? k + 1 : k;
                std::vector<uint32_t> idx(o.n * kk);
                std::vector<float> sq(o.n * kk);
                const Timings knn = timeRepeated(o.repeats, [&] {
                    backend.search->search(x.data(), o.n, model.high.data(), g, d, kk, idx.data(),
                                           sq.data());
                });
                nlohmann::json j = nlohmann::json::parse(contextJson());
                j["bench"] = "project";
                j["backend"] = backend.name;
                j["backend_reason"] = backend.reason;
                if (backend.name == "cuda") j["kernel"] = o.kernel;
                j["data"] = o.data;
                j["n"] = o.n;
                j["d"] = d;
                j["g"] = g;
                j["k"] = k;
                j["smooth"] = o.smooth;
                j["adjust"] = o.adjust;
                j["repeats"] = o.repeats;
                // The reference projector is single-threaded by design.
                j["projector_threads"] = reference ? 1 : j["threads"].get<int>();
                j["headline"] = d == 32 && g == 256 && k == 16 && o.n == (size_t{1} << 20);
                j["total"] = figures(total, o.n);
                j["knn"] = figures(knn, o.n);
                // Projection after the k-NN: the difference of the two medians.
                j["projection_after_knn_s"] = total.median - knn.median;
                if (backend.name == "cuda")
                    j["timing"] = "host memory to host memory (includes both copies)";
                if (reference && defaultN)
                    j["note"] = "reference timed at n = 2^16 by default: it is slow";
                j["non_finite_points"] = report.nonFinitePoints;
                j["degenerate_points"] = report.degeneratePoints;
                std::printf("%s\n", j.dump().c_str());
                std::fflush(stdout);
            }
        }
    }
}

void addProject(CLI::App& app) {
    auto o = std::make_shared<ProjectOptions>();
    CLI::App* sub = app.add_subcommand(
        "project", "EmbedSOM projection throughput (k-NN and projection), benchmarks.md grid");
    sub->add_option("--backend", o->backend, "cpu, reference, cuda or auto");
    sub->add_option("--kernel", o->kernel, "CUDA projection kernel by name (auto: the fastest)");
    sub->add_option("--n", o->n, "points (default 2^20; 2^16 for the reference)");
    sub->add_option("--d", o->d, "dimensions, a list")->delimiter(',');
    sub->add_option("--g", o->g, "landmark counts, a list")->delimiter(',');
    sub->add_option("--k", o->k, "neighbours, a list (k > g is left out)")->delimiter(',');
    sub->add_option("--data", o->data, "normal (N(0,1)) or clustered (Gaussian blobs)");
    sub->add_option("--repeats", o->repeats,
                    "timed runs after a warm-up (default 10; 3 for the reference)");
    sub->add_option("--seed", o->seed, "data seed");
    sub->add_option("--smooth", o->smooth, "EmbedSOM's smooth (default 0)");
    sub->add_option("--adjust", o->adjust, "EmbedSOM's adjust (default 1)");
    sub->add_flag("--headline", o->headline, "only the headline configuration: d 32, g 256, k 16");
    sub->callback([o] { runProject(*o); });
}

const BenchRegistration projectBench{addProject};

}  // namespace

}  // namespace sepal::bench
