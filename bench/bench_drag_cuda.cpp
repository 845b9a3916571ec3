// sepal-bench cuda-drag: what the desktop application's GPU leg computes per frame while a user
// drags a landmark, and while a SOM trains (every landmark moves in data space: the neighbour
// cache's worst case), with the device-side neighbour cache on and off. Points stay on the
// device; each frame projects into a device buffer (as into the mapped vertex buffer) and is
// timed on the host clock after the device finished. One JSON line per (g, mode, cache).

#ifdef SEPAL_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "clustered_cells.h"
#include "core/model/landmark_model.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"

namespace sepal::bench {
namespace {

struct Options {
    size_t n = 10000000;
    size_t d = 32;
    std::vector<int> gs{256, 1024};
    int k = 16;
    int frames = 60;
    std::vector<std::string> modes{"drag", "som"};
};

/// g landmarks on cells of the data, their 2D positions on a square grid (a trained map's).
LandmarkModel makeModel(const std::vector<float>& x, size_t n, size_t d, size_t g) {
    LandmarkModel m;
    m.resize(g, d);
    const size_t side = size_t(std::ceil(std::sqrt(double(g))));
    for (size_t j = 0; j < g; ++j) {
        const size_t row = (j * 7919 + 13) * 104729 % n;
        std::copy(x.begin() + long(row * d), x.begin() + long((row + 1) * d), m.highRow(j));
        m.low[2 * j] = float(j % side);
        m.low[2 * j + 1] = float(j / side);
    }
    m.touch();
    return m;
}

void runOne(const Options& o, const std::vector<float>& x, size_t g, const std::string& mode,
            bool cacheOn, float* deviceOut) {
    LandmarkModel model = makeModel(x, o.n, o.d, g);
    const LandmarkModel start = model;
    EmbedParams params;
    params.k = o.k;
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "cuda_drag";
    j["mode"] = mode;
    j["neighbour_cache"] = cacheOn;
    j["n"] = o.n;
    j["d"] = o.d;
    j["g"] = g;
    j["k"] = o.k;
    try {
        cuda::CudaProjector projector("auto");
        projector.keepNeighbourLists(cacheOn);
        auto t0 = std::chrono::steady_clock::now();
        projector.setPoints(x.data(), o.n, o.d);
        auto ms = [](std::chrono::steady_clock::time_point since) {
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                             since)
                .count();
        };
        j["upload_ms"] = ms(t0);
        t0 = std::chrono::steady_clock::now();
        projector.projectToDevice(model, params, deviceOut);
        j["first_projection_ms"] = ms(t0);
        j["kernel"] = projector.lastKernel();
        std::vector<double> times;
        double projected = 0;
        const float r = 0.3f;
        for (int f = 0; f < o.frames; ++f) {
            if (mode == "drag") {
                // Landmark 0 circles around its place, as the frame benchmark drags it.
                const float a = float(f + 1) * 0.05f;
                model.low[0] = start.low[0] + r * std::cos(a);
                model.low[1] = start.low[1] + r * std::sin(a);
                ++model.lowVersion;
            } else {
                // A SOM step: every landmark moves towards a cell of the data.
                const size_t row = (size_t(f) * 2654435761u) % o.n;
                for (size_t l = 0; l < g; ++l)
                    for (size_t t = 0; t < o.d; ++t)
                        model.high[l * o.d + t] +=
                            0.01f * (x[row * o.d + t] - model.high[l * o.d + t]);
                ++model.highVersion;
            }
            t0 = std::chrono::steady_clock::now();
            projector.projectToDevice(model, params, deviceOut);
            times.push_back(ms(t0));
            projected += double(projector.lastProjected());
            if (f == 0) j["first_frame_ms"] = times.back();
        }
        std::vector<double> sorted = times;
        std::sort(sorted.begin(), sorted.end());
        const double mean = std::accumulate(times.begin(), times.end(), 0.0) / double(times.size());
        j["frames"] = o.frames;
        j["mean_ms"] = mean;
        j["median_ms"] = sorted[sorted.size() / 2];
        j["p95_ms"] = sorted[std::min(sorted.size() - 1, size_t(double(sorted.size()) * 0.95))];
        j["max_ms"] = sorted.back();
        j["cells_per_frame"] = projected / double(o.frames);
        const auto [bytes, refusal] = projector.cacheState();
        j["cache_mb"] = double(bytes) / 1e6;
        if (!refusal.empty()) j["cache_off"] = refusal;
    } catch (const std::exception& e) {
        j["error"] = e.what();
    }
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

void run(const Options& o) {
    std::string why;
    if (!cuda::deviceAvailable(&why)) throw std::runtime_error("no usable CUDA device: " + why);
    void* raw = nullptr;
    SEPAL_CUDA_CHECK(cudaMalloc(&raw, o.n * 2 * sizeof(float)));
    const auto x = makeClusteredCells(o.n, o.d);
    for (int g : o.gs)
        for (const auto& mode : o.modes)
            for (bool cacheOn : {true, false})
                runOne(o, x, size_t(g), mode, cacheOn, static_cast<float*>(raw));
    cudaFree(raw);
}

void addCudaDrag(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "cuda-drag",
        "GPU projection per frame while dragging a landmark or training, neighbour "
        "cache on and off");
    static Options o;
    sub->add_option("--n", o.n, "cells (default 10^7)");
    sub->add_option("-d", o.d, "dimensions (default 32)");
    sub->add_option("-g", o.gs, "landmarks (default 256 1024)");
    sub->add_option("-k", o.k, "neighbours (default 16)");
    sub->add_option("--frames", o.frames, "frames timed per run (default 60)");
    sub->add_option("--mode", o.modes, "drag, som or both (default)")
        ->check(CLI::IsMember({"drag", "som"}));
    sub->callback([] { run(o); });
}

BenchRegistration dragCudaBench{addCudaDrag};

}  // namespace
}  // namespace sepal::bench

#endif  // SEPAL_HAVE_CUDA
