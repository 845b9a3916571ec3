// sepal-bench cuda-polish: the UMAP-like polish (--polish N) of every cell with its neighbour
// search and epochs on the GPU (cuda_polish_device.cpp), after the default recipe's landmarks
// (k-means on a sample, t-SNE layout) and EmbedSOM's picture. One JSON line per size: the
// polish's seconds and its phases (gpu); with --cpu-n, the CPU's polish of the first cells
// beside it (cpu_polish, gpu_same_n) and whether the two pictures are the same bit for bit.

#ifdef SEPAL_HAVE_CUDA

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "clustered_cells.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/polish.h"

namespace sepal::bench {
namespace {

struct PolishBenchOptions {
    std::vector<size_t> ns{1000000, 10000000};
    std::vector<size_t> gs{512, 4096};  // about one landmark per 2,000 cells at 10^7
    size_t d = 32;
    size_t epochs = 20;
    size_t cpuN = 0;
};

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Polishes xy on `device` (null: the CPU) and says where the time went.
nlohmann::json timedPolish(const Matrix& points, const LandmarkModel& model, std::vector<float>& xy,
                           size_t epochs, PolishDevice* device, NearestSearch& search) {
    PolishParams p;
    p.epochs = epochs;
    p.device = device;
    PolishTimes times;
    p.times = &times;
    const auto t0 = std::chrono::steady_clock::now();
    polishPositions(points, model, xy.data(), p, search);
    return {{"seconds", secondsSince(t0)},
            {"search_s", times.search},
            {"neighbours_s", times.neighbours},
            {"graph_s", times.graph},
            {"epochs_s", times.epochs}};
}

void runPolishBench(const PolishBenchOptions& o) {
    Backend gpu = makeBackend("cuda");
    Backend cpu = makeBackend("cpu");
    for (size_t c = 0; c < o.ns.size(); ++c) {
        const size_t n = o.ns[c], g = o.gs[std::min(c, o.gs.size() - 1)];
        nlohmann::json j = nlohmann::json::parse(contextJson());
        j["bench"] = "cuda_polish";
        j["n"] = n, j["d"] = o.d, j["g"] = g, j["epochs"] = o.epochs;
        try {
            Matrix points(n, o.d);
            points.values = makeClusteredCells(n, o.d);
            EmbedSettings s;
            s.landmarks = parseLandmarkSpec("kmeans:" + std::to_string(g));
            s.params = defaultEmbedParams(s.landmarks);
            auto t0 = std::chrono::steady_clock::now();
            const LandmarkModel model = trainLandmarks(points, s, *gpu.search);
            j["train_s"] = secondsSince(t0);
            std::vector<float> start(2 * n);
            gpu.projector->project(points.data(), n, o.d, model, s.params, start.data());
            std::vector<float> xy = start;
            j["gpu"] = timedPolish(points, model, xy, o.epochs, gpu.polish.get(), *gpu.search);
            j["cells_epochs_per_s"] = double(n * o.epochs) / j["gpu"]["seconds"].get<double>();
            if (o.cpuN > 0) {
                // The first cpuN cells alone, on both: their pictures must be the same.
                const size_t m = std::min(o.cpuN, n);
                Matrix part(m, o.d);
                part.values.assign(points.values.begin(), points.values.begin() + long(m * o.d));
                std::vector<float> onCpu(start.begin(), start.begin() + long(2 * m));
                std::vector<float> onGpu = onCpu;
                j["cpu_n"] = m;
                j["cpu_polish"] = timedPolish(part, model, onCpu, o.epochs, nullptr, *cpu.search);
                j["gpu_same_n"] =
                    timedPolish(part, model, onGpu, o.epochs, gpu.polish.get(), *gpu.search);
                j["same_as_cpu"] = onCpu == onGpu;
            }
        } catch (const std::exception& e) {
            j["error"] = e.what();
        }
        std::printf("%s\n", j.dump().c_str());
        std::fflush(stdout);
    }
}

void addCudaPolish(CLI::App& app) {
    auto* sub = app.add_subcommand("cuda-polish",
                                   "the UMAP-like polish of every cell on the GPU (--polish N)");
    static PolishBenchOptions o;
    sub->add_option("--n", o.ns, "cells (default 10^6 10^7)");
    sub->add_option("-g", o.gs, "landmarks for each --n (default 512 4096)");
    sub->add_option("-d", o.d, "dimensions (default 32)");
    sub->add_option("--epochs", o.epochs, "epochs (default 20)");
    sub->add_option("--cpu-n", o.cpuN, "also polish the first N cells on the CPU and compare");
    sub->callback([] { runPolishBench(o); });
}

BenchRegistration polishCudaBench{addCudaPolish};

}  // namespace
}  // namespace sepal::bench

#endif  // SEPAL_HAVE_CUDA
