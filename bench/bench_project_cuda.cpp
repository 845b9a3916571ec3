// sepal-bench cuda-project: the CUDA EmbedSOM kernels over the benchmark grid (benchmarks.md).
// Timed region: points already on the device to the 2D result on the device (CUDA events),
// median of --reps runs after warm-up; also the k-NN phase alone and the end-to-end figure with
// host-to-device and device-to-host copies (host clock). For auto: how it chose ("measured" on
// this GPU in this run, "cached" from an earlier measurement, "rule") and the candidates' times
// (auto_kernel.h; the first warm-up projection is the one that measures).

#ifdef SEPAL_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "core/embedsom/kernel_choice.h"
#include "core/model/landmark_model.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"
#include "cuda/kernel_registry.h"
#include "cuda/training_step.h"

namespace sepal::bench {
namespace {

struct Options {
    std::vector<std::string> kernels{"all"};
    bool grid = false;
    size_t n = size_t(1) << 20;
    int reps = 10;
    std::string data = "normal";
    float smooth = 0.0f, adjust = 1.0f;  // EmbedSOM's (the app's default recipe: -2 and 3)
    std::vector<int> ds{32}, gs{256}, ks{16};
    std::vector<size_t> streamChunks{0};  // cells per streamed chunk (0: the projector's choice)
};

std::vector<float> makePoints(size_t n, size_t d, bool clustered, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int blobs = 12;
    std::vector<float> centres(blobs * d);
    for (auto& c : centres) c = 5.0f * normal(rng);
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i) {
        const size_t b = rng() % blobs;
        for (size_t t = 0; t < d; ++t)
            x[i * d + t] = clustered ? centres[b * d + t] + 0.8f * normal(rng) : normal(rng);
    }
    return x;
}

LandmarkModel makeModel(const std::vector<float>& x, size_t n, size_t d, size_t g,
                        const std::string& data);

/// The clustered model after 20 of Lloyd's steps over the points on the GPU, as the app's
/// k-means leaves its landmarks; made once per (d, g), so that every kernel of a run projects
/// through the same landmarks.
LandmarkModel trainedModel(const std::vector<float>& x, size_t n, size_t d, size_t g) {
    static std::map<std::pair<size_t, size_t>, LandmarkModel> made;
    const auto key = std::make_pair(d, g);
    if (auto it = made.find(key); it != made.end()) return it->second;
    LandmarkModel m = makeModel(x, n, d, g, "clustered");
    cuda::TrainingStep step(x.data(), n, d);
    for (int s = 0; s < 20; ++s) m.high = step.stepKmeans(m.high.data(), g).landmarks;
    m.touch();
    return made[key] = m;
}

/// Landmarks on a grid layout: normal draws, cells of the data (clustered), cells of the data
/// in groups of 8 a hundredth apart, map neighbours, as a SOM's training leaves them (crowded:
/// most cells then have pairs past kExactRatio), or k-means' landmarks (trained).
LandmarkModel makeModel(const std::vector<float>& x, size_t n, size_t d, size_t g,
                        const std::string& data) {
    if (data == "trained") return trainedModel(x, n, d, g);
    std::mt19937 rng(1234);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    LandmarkModel m;
    m.resize(g, d);
    const size_t side = size_t(std::ceil(std::sqrt(double(g))));
    for (size_t j = 0; j < g; ++j) {
        const size_t row = rng() % n;
        for (size_t t = 0; t < d; ++t) {
            if (data == "normal")
                m.high[j * d + t] = normal(rng);
            else if (data == "crowded" && j % 8 != 0)
                m.high[j * d + t] = m.high[(j / 8 * 8) * d + t] + 0.01f * normal(rng);
            else
                m.high[j * d + t] = x[row * d + t];
        }
        m.low[2 * j] = float(j % side);
        m.low[2 * j + 1] = float(j / side);
    }
    m.touch();
    return m;
}

struct Stats {
    double median = 0, min = 0, max = 0;
};

Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

std::string gpuName() {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "none";
    return prop.name;
}

/// How auto chose its kernel, and the candidates' times behind the choice.
void addAutoChoice(nlohmann::json& j, const AutoChoice& choice) {
    j["auto_choice"] = choice.source;
    if (!choice.shapeClass.empty()) j["auto_shape_class"] = choice.shapeClass;
    nlohmann::json timings = nlohmann::json::object();
    for (const KernelTiming& t : choice.timings) timings[t.kernel] = t.ms;
    if (!choice.timings.empty()) j["auto_timings_ms"] = timings;
}

void runOne(const Options& o, const std::vector<float>& x, size_t d, size_t g, int k,
            const std::string& kernel, float* deviceOut, const std::string& gpu) {
    const LandmarkModel model = makeModel(x, o.n, d, g, o.data);
    EmbedParams params;
    params.k = k;
    params.smooth = o.smooth;
    params.adjust = o.adjust;
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "project";
    j["backend"] = "cuda";
    j["kernel"] = kernel;
    j["gpu"] = gpu;
    j["n"] = o.n;
    j["d"] = d;
    j["g"] = g;
    j["k"] = k;
    j["smooth"] = o.smooth;
    j["adjust"] = o.adjust;
    j["data"] = o.data;
    try {
        cuda::CudaProjector projector(kernel);
        projector.enableTiming(true);
        projector.setPoints(x.data(), o.n, d);
        // The first projection, host clock: with auto, the measurement it may make is in it.
        const auto first = std::chrono::steady_clock::now();
        projector.projectToDevice(model, params, deviceOut);
        j["first_projection_ms"] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first)
                .count();
        // The first projection made auto's choice (measured, or read from the cache); later
        // ones find it kept, so it is read here.
        const AutoChoice choice = projector.lastAutoChoice();
        projector.projectToDevice(model, params, deviceOut);
        std::vector<double> total, knn, split;
        // A whole projection's queues, before knnOnly's runs below.
        unsigned long long deferred = 0, exactForm = 0;
        for (int r = 0; r < o.reps; ++r) {
            projector.projectToDevice(model, params, deviceOut);
            const auto t = projector.lastTimes();
            total.push_back(t.totalMs);
            split.push_back(t.knnMs);
            deferred = t.deferredCells;
            exactForm = t.exactFormCells;
        }
        j["kernel_used"] = projector.lastKernelName();
        if (kernel == "auto") addAutoChoice(j, choice);
        if (!projector.splitUnavailable().empty())
            j["split_unavailable"] = projector.splitUnavailable();
        for (int r = 0; r < std::max(3, o.reps / 2); ++r) {
            projector.knnOnly(model, params);
            knn.push_back(projector.lastTimes().totalMs);
        }
        const Stats t = stats(total), kn = stats(knn);
        j["median_ms"] = t.median;
        j["min_ms"] = t.min;
        j["max_ms"] = t.max;
        j["reps"] = o.reps;
        j["points_per_s"] = double(o.n) / (t.median * 1e-3);
        j["knn_ms"] = kn.median;
        j["project_ms"] = std::max(0.0, t.median - kn.median);
        j["knn_split_ms"] = stats(split).median;
        j["deferred_cells"] = deferred;
        j["exact_form_cells"] = exactForm;
        if (projector.lastKernelName().rfind("tensor", 0) == 0) {
            j["candidates_per_point"] = projector.lastTimes().candidatesPerPoint;
            j["exact_scans"] = projector.lastTimes().exactScans;
        }
        // End to end: host points to host result through the streaming path, once per chunk
        // size asked for (the first is end_to_end_ms).
        std::vector<float> y(o.n * 2);
        std::vector<float> copy = x;  // a pointer the projector has not seen: it streams
        nlohmann::json byChunk = nlohmann::json::object();
        for (size_t c = 0; c < o.streamChunks.size(); ++c) {
            projector.setStreamChunk(o.streamChunks[c]);
            std::vector<double> e2e;
            for (int r = 0; r < std::max(3, o.reps); ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                projector.project(copy.data(), o.n, d, model, params, y.data());
                e2e.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
            }
            const Stats e = stats(e2e);
            if (c == 0) {
                j["end_to_end_ms"] = e.median;
                j["end_to_end_points_per_s"] = double(o.n) / (e.median * 1e-3);
            }
            if (o.streamChunks.size() > 1) byChunk[std::to_string(o.streamChunks[c])] = e.median;
        }
        if (!byChunk.empty()) j["end_to_end_ms_by_chunk"] = byChunk;
    } catch (const std::exception& ex) {
        j["error"] = ex.what();
    }
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

/// The kernels named on the command line, with `all` standing for every kernel of the registry.
std::vector<std::string> expandKernels(const std::vector<std::string>& names) {
    std::vector<std::string> kernels;
    for (const auto& name : names) {
        if (name != "all") {
            kernels.push_back(name);
            continue;
        }
        for (const auto& entry : cuda::kernelRegistry()) kernels.emplace_back(entry.name);
    }
    return kernels;
}

void run(const Options& o) {
    std::string why;
    if (!cuda::deviceAvailable(&why)) throw std::runtime_error("no usable CUDA device: " + why);
    const std::string gpu = gpuName();
    float* deviceOut = nullptr;
    void* raw = nullptr;
    SEPAL_CUDA_CHECK(cudaMalloc(&raw, o.n * 2 * sizeof(float)));
    deviceOut = static_cast<float*>(raw);
    const std::vector<std::string> kernels = expandKernels(o.kernels);
    const std::vector<int> ds = o.grid ? std::vector<int>{4, 16, 32, 64} : o.ds;
    const std::vector<int> gs = o.grid ? std::vector<int>{64, 256, 1024} : o.gs;
    const std::vector<int> ks = o.grid ? std::vector<int>{8, 16, 32, 64} : o.ks;
    for (int d : ds) {
        const auto x = makePoints(o.n, size_t(d), o.data != "normal", 42 + d);
        for (int g : gs)
            for (int k : ks) {
                if (k >= g) continue;
                for (const auto& kernel : kernels) runOne(o, x, d, g, k, kernel, deviceOut, gpu);
            }
    }
    cudaFree(raw);
}

void addCudaProject(CLI::App& app) {
    auto* sub = app.add_subcommand("cuda-project",
                                   "CUDA EmbedSOM kernels: points/s with data on the device");
    static Options o;
    std::vector<std::string> choices = cuda::kernelNames();
    choices.emplace_back("all");
    sub->add_option("--kernel", o.kernels,
                    "kernels to time (all, the default: every kernel of the registry)")
        ->check(CLI::IsMember(choices));
    sub->add_flag("--grid", o.grid, "the whole grid: d 4,16,32,64; g 64,256,1024; k 8..64");
    sub->add_option("--n", o.n, "points (default 2^20)");
    sub->add_option("--reps", o.reps, "timed runs per configuration (median reported)");
    sub->add_option("--stream-chunk", o.streamChunks,
                    "cells per chunk of the end-to-end figure's streaming (0: the projector's "
                    "choice; several: one figure each)");
    sub->add_option("--data", o.data,
                    "normal, clustered, crowded (clustered, the landmarks in tight groups of "
                    "8 as a SOM's training leaves them) or trained (clustered, the landmarks "
                    "after 20 k-means steps)")
        ->check(CLI::IsMember({"normal", "clustered", "crowded", "trained"}));
    sub->add_option("--smooth", o.smooth, "EmbedSOM's smooth (default 0)");
    sub->add_option("--adjust", o.adjust, "EmbedSOM's adjust (default 1)");
    sub->add_option("-d", o.ds, "dimensions (without --grid)");
    sub->add_option("-g", o.gs, "landmarks (without --grid)");
    sub->add_option("-k", o.ks, "neighbours (without --grid)");
    sub->callback([] { run(o); });
}

BenchRegistration projectCudaBench{addCudaProject};

}  // namespace
}  // namespace sepal::bench

#endif  // SEPAL_HAVE_CUDA
