// sepal-bench cuda-train: one training step (k-means or batch SOM) over every cell on the GPU,
// with the cells resident on the device (cuda/training_step.h), and the batch path that each
// call allocated and copied the assignment back (cuda/batch_train.h) as the baseline in the same
// run. Each step feeds its new landmarks to the next, as training does. One JSON line per
// (g, mode) and path: the median ms per step on the host clock after the device finished, cells
// per second, the device phases from CUDA events, the k-NN kernel and the device memory.

#ifdef SEPAL_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_registry.h"
#include "cuda/batch_train.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/training_step.h"

namespace sepal::bench {
namespace {

struct TrainOptions {
    size_t n = 100000000;
    size_t d = 32;
    std::vector<int> gs{256, 1024};
    std::vector<std::string> modes{"kmeans", "batch-som"};
    int steps = 20;
    std::string knn = "auto";
    long baselineN = -1;  // -1: the same n; 0: no baseline
    int baselineSteps = 3;
};

/// n x d cells around 16 centres, made on every core: a hashed noise per value, roughly normal
/// (the sum of four uniforms), as sepal-bench cuda-drag makes them.
std::vector<float> makeTrainCells(size_t n, size_t d) {
    std::vector<float> centres(16 * d);
    uint64_t s = 12345;
    auto next = [](uint64_t& state) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        return state;
    };
    for (auto& c : centres) c = float(int(next(s) % 2001) - 1000) / 200.0f;
    std::vector<float> x(n * d);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (size_t i = n * t / threads; i < n * (t + 1) / threads; ++i) {
                // Seeded by the row: the same cells on any number of cores.
                uint64_t state = 0x9e3779b97f4a7c15ull * (i + 1);
                state = (state ^ (state >> 30)) * 0xbf58476d1ce4e5b9ull;
                state = (state ^ (state >> 27)) * 0x94d049bb133111ebull;
                state = (state ^ (state >> 31)) | 1;
                const size_t c = next(state) % 16;
                for (size_t j = 0; j < d; ++j) {
                    const uint64_t r = next(state);
                    const float u = float((r & 0xffff) + ((r >> 16) & 0xffff) +
                                          ((r >> 32) & 0xffff) + ((r >> 48) & 0xffff)) /
                                        65536.0f -
                                    2.0f;
                    x[i * d + j] = centres[c * d + j] + 0.8f * u;
                }
            }
        });
    for (auto& t : pool) t.join();
    return x;
}

/// g landmarks on cells of the data (a fixed spread of rows).
std::vector<float> startLandmarks(const std::vector<float>& x, size_t n, size_t d, size_t g) {
    std::vector<float> l(g * d);
    for (size_t j = 0; j < g; ++j) {
        const size_t row = (j * 7919 + 13) * 104729 % n;
        std::copy(x.begin() + long(row * d), x.begin() + long((row + 1) * d),
                  l.begin() + long(j * d));
    }
    return l;
}

/// A square map's 2D positions and its Gaussian neighbourhood (sigma a quarter of the side).
std::vector<float> mapNeighbourhood(size_t g) {
    const size_t side = size_t(std::ceil(std::sqrt(double(g))));
    std::vector<float> grid(2 * g);
    for (size_t j = 0; j < g; ++j) grid[2 * j] = float(j % side), grid[2 * j + 1] = float(j / side);
    return cuda::gaussianNeighbourhood(grid.data(), g, std::max(1.0f, float(side) / 4.0f));
}

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double freeDeviceMb() {
    size_t freeBytes = 0, total = 0;
    SEPAL_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    return double(freeBytes) / 1e6;
}

nlohmann::json lineFor(const char* path, size_t n, size_t d, size_t g, const std::string& mode) {
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "cuda_train";
    j["path"] = path;
    j["mode"] = mode;
    j["n"] = n;
    j["d"] = d;
    j["g"] = g;
    return j;
}

void print(const nlohmann::json& j) {
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

/// The resident step: one warm-up step, then `steps` timed ones.
void runResident(const TrainOptions& o, cuda::TrainingStep& gpu, const std::vector<float>& x,
                 size_t g, const std::string& mode, double uploadMs, double freeBeforeMb) {
    nlohmann::json j = lineFor("resident", o.n, o.d, g, mode);
    try {
        std::vector<float> l = startLandmarks(x, o.n, o.d, g);
        const bool som = mode == "batch-som";
        if (som) gpu.setNeighbourhood(mapNeighbourhood(g).data(), g);
        auto once = [&] {
            cuda::StepResult r = som ? gpu.stepBatchSom(l.data(), g) : gpu.stepKmeans(l.data(), g);
            l = std::move(r.landmarks);
            return r;
        };
        auto t0 = std::chrono::steady_clock::now();
        const cuda::StepResult first = once();
        j["first_step_ms"] = msSince(t0);
        // Read after the first step, which grows the step's buffers for this g.
        j["device_used_mb"] = freeBeforeMb - freeDeviceMb();
        std::vector<double> wall, assign, accumulate, smooth, inertia;
        for (int s = 0; s < o.steps; ++s) {
            t0 = std::chrono::steady_clock::now();
            const cuda::StepResult r = once();
            wall.push_back(msSince(t0));
            const cuda::StepTimes t = gpu.lastTimes();
            assign.push_back(t.assignMs);
            accumulate.push_back(t.accumulateMs);
            smooth.push_back(t.smoothMs);
            inertia.push_back(r.inertia);
        }
        const double ms = median(wall);
        j["steps"] = o.steps;
        j["median_ms"] = ms;
        j["min_ms"] = wall.empty() ? 0.0 : *std::min_element(wall.begin(), wall.end());
        j["max_ms"] = wall.empty() ? 0.0 : *std::max_element(wall.begin(), wall.end());
        j["steps_per_s"] = ms > 0 ? 1e3 / ms : 0.0;
        j["cells_per_s"] = ms > 0 ? double(o.n) / (ms / 1e3) : 0.0;
        j["assign_ms"] = median(assign);
        j["accumulate_ms"] = median(accumulate);
        j["smooth_ms"] = median(smooth);
        j["knn_kernel"] = gpu.lastKernel();
        j["sums_in"] = gpu.lastSumMode();
        j["skipped"] = first.skipped;
        j["inertia_first"] = first.inertia;
        j["inertia_last"] = inertia.empty() ? first.inertia : inertia.back();
        j["upload_ms"] = uploadMs;
        j["device_mb"] = double(gpu.deviceBytes()) / 1e6;
    } catch (const std::exception& e) {
        j["error"] = e.what();
    }
    print(j);
}

/// The batch path as it was: every call allocates, assigns, sums and copies the n winners back.
void runBaseline(const TrainOptions& o, const std::vector<float>& x, size_t n) {
    try {
        auto t0 = std::chrono::steady_clock::now();
        cuda::DevicePoints points(x.data(), n, o.d);
        const double uploadMs = msSince(t0);
        for (int g : o.gs)
            for (const auto& mode : o.modes) {
                nlohmann::json j = lineFor("baseline", n, o.d, size_t(g), mode);
                j["baseline"] =
                    "kmeansAssignAccumulate / batchSomStep (allocations and the n "
                    "assignments copied back every call)";
                try {
                    std::vector<float> l = startLandmarks(x, n, o.d, size_t(g));
                    std::vector<float> grid(2 * size_t(g));
                    const size_t side = size_t(std::ceil(std::sqrt(double(g))));
                    for (size_t k = 0; k < size_t(g); ++k)
                        grid[2 * k] = float(k % side), grid[2 * k + 1] = float(k / side);
                    const float sigma = std::max(1.0f, float(side) / 4.0f);
                    std::vector<double> wall;
                    for (int s = 0; s <= o.baselineSteps; ++s) {
                        t0 = std::chrono::steady_clock::now();
                        if (mode == "kmeans") {
                            const auto km =
                                cuda::kmeansAssignAccumulate(points, l.data(), size_t(g));
                            for (size_t k = 0; k < size_t(g); ++k)
                                if (km.counts[k] > 0)
                                    for (size_t t = 0; t < o.d; ++t)
                                        l[k * o.d + t] = km.sums[k * o.d + t] / km.counts[k];
                        } else {
                            const auto som =
                                cuda::batchSomStep(points, l.data(), grid.data(), size_t(g), sigma);
                            for (size_t k = 0; k < size_t(g); ++k)
                                if (som.denominators[k] > 0)
                                    for (size_t t = 0; t < o.d; ++t)
                                        l[k * o.d + t] =
                                            som.numerators[k * o.d + t] / som.denominators[k];
                        }
                        if (s > 0) wall.push_back(msSince(t0));  // step 0 warms up
                    }
                    const double ms = median(wall);
                    j["steps"] = o.baselineSteps;
                    j["median_ms"] = ms;
                    j["cells_per_s"] = ms > 0 ? double(n) / (ms / 1e3) : 0.0;
                    j["upload_ms"] = uploadMs;
                } catch (const std::exception& e) {
                    j["error"] = e.what();
                }
                print(j);
            }
    } catch (const std::exception& e) {
        nlohmann::json j = lineFor("baseline", n, o.d, 0, "");
        j["error"] = e.what();
        print(j);
    }
}

void runTrain(const TrainOptions& o) {
    std::string why;
    if (!cuda::deviceAvailable(&why)) throw std::runtime_error("no usable CUDA device: " + why);
    auto t0 = std::chrono::steady_clock::now();
    const auto x = makeTrainCells(o.n, o.d);
    std::fprintf(stderr, "cuda-train: %zu x %zu cells made in %.0f ms\n", o.n, o.d, msSince(t0));
    {
        const double freeBefore = freeDeviceMb();
        t0 = std::chrono::steady_clock::now();
        cuda::TrainingStep gpu(x.data(), o.n, o.d, o.knn);
        const double uploadMs = msSince(t0);
        for (int g : o.gs)
            for (const auto& mode : o.modes)
                runResident(o, gpu, x, size_t(g), mode, uploadMs, freeBefore);
    }
    const size_t baselineN = o.baselineN < 0 ? o.n : size_t(o.baselineN);
    if (baselineN > 0) runBaseline(o, x, std::min(baselineN, o.n));
}

void addCudaTrain(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "cuda-train", "one k-means or batch-SOM step over every cell on the GPU, cells resident");
    static TrainOptions o;
    sub->add_option("--n", o.n, "cells (default 10^8)");
    sub->add_option("-d", o.d, "dimensions (default 32)");
    sub->add_option("-g", o.gs, "landmarks (default 256 1024)");
    sub->add_option("--mode", o.modes, "kmeans, batch-som or both (default)")
        ->check(CLI::IsMember({"kmeans", "batch-som"}));
    sub->add_option("--steps", o.steps, "steps timed per configuration (default 20)");
    sub->add_option("--knn", o.knn,
                    "nearest-landmark kernel: auto (default), resident, parts, tensor, fused, "
                    "bitonic");
    sub->add_option("--baseline-n", o.baselineN,
                    "cells of the baseline (default: --n; 0: no baseline)");
    sub->add_option("--baseline-steps", o.baselineSteps,
                    "steps timed per baseline configuration (default 3)");
    sub->callback([] { runTrain(o); });
}

BenchRegistration trainCudaBench{addCudaTrain};

}  // namespace
}  // namespace sepal::bench

#endif  // SEPAL_HAVE_CUDA
