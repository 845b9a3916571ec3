// sepal-bench cuda-train: one training step (k-means or batch SOM) over every cell on the GPU,
// with the cells resident on the device (cuda/training_step.h). Each step feeds its new
// landmarks to the next, as training does. One JSON line per (g, mode): the median ms per step
// on the host clock after the device finished, cells per second, the device phases from CUDA
// events, the k-NN kernel and the device memory. (The batch path it replaced, which allocated
// and copied the assignment back every call, is measured beside it in GPU_NOTES.md.) Several
// --knn names run one after another on the same cells (each uploads them again), so that a
// kernel and the one it replaced are timed in one run. `--mode batch-som-app` runs the app's
// batch SOM instead: core's BatchSomTrainer over the backend's whole-data steps, on a square map
// with the Training window's schedule (SomParams' square neighbourhood and Chebyshev distances,
// the radius from 1.5 map spacings to 0 over the steps), with each epoch's device figures; with
// `--slice N` each epoch is followed by the app's training frame's other device work, the next
// 1/N of the cells projected through its landmarks (the phases, the queues, distinct landmarks).

#ifdef SEPAL_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "clustered_cells.h"
#include "core/knn/nearest_search.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/train/batch_som_trainer.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/cuda_projector.h"
#include "cuda/device_buffer.h"
#include "cuda/nearest_landmark.h"
#include "cuda/training_step.h"

namespace sepal::bench {
namespace {

struct TrainOptions {
    size_t n = 100000000;
    size_t d = 32;
    std::vector<int> gs{256, 1024};
    std::vector<std::string> modes{"kmeans", "batch-som"};
    int steps = 20;
    std::vector<std::string> knns{"auto"};
    std::vector<std::string> sums{"sorted"};  // the sums passes, each run in turn
    bool inertia = false;    // measure the distances left to the sums (the trainers do not)
    size_t sliceFrames = 0;  // batch-som-app: project a 1/sliceFrames slice after each epoch
    std::string sliceKernel = "auto";  // the projection kernel of those slices
};

/// Chooses the training step's sums pass for the next steps through its environment switches
/// (replacing any the caller set): sorted (the default), shared (one addition a point) or fused
/// (in the nearest kernel's pass).
void chooseSums(const std::string& sums) {
    unsetenv("SEPAL_TRAIN_FUSED_SUMS");
    unsetenv("SEPAL_TRAIN_SORTED_SUMS");
    if (sums == "shared") setenv("SEPAL_TRAIN_SORTED_SUMS", "0", 1);
    if (sums == "fused") setenv("SEPAL_TRAIN_FUSED_SUMS", "1", 1);
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

nlohmann::json lineFor(const char* path, size_t n, size_t d, size_t g, const std::string& mode,
                       const std::string& knn) {
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "cuda_train";
    j["path"] = path;
    j["knn"] = knn;
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
                 size_t g, const std::string& mode, const std::string& knn, double uploadMs,
                 double freeBeforeMb) {
    nlohmann::json j = lineFor("resident", o.n, o.d, g, mode, knn);
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
        std::vector<double> wall, assign, scan, accumulate, smooth, inertia, scans, lone, kept,
            shares, order;
        for (int s = 0; s < o.steps; ++s) {
            t0 = std::chrono::steady_clock::now();
            const cuda::StepResult r = once();
            wall.push_back(msSince(t0));
            const cuda::StepTimes t = gpu.lastTimes();
            assign.push_back(t.assignMs);
            scan.push_back(t.exactScanMs);
            accumulate.push_back(t.accumulateMs);
            smooth.push_back(t.smoothMs);
            inertia.push_back(r.inertia);
            scans.push_back(double(gpu.lastExactScans()));
            lone.push_back(double(gpu.lastLoneCells()));
            kept.push_back(double(gpu.lastKeptCells()));
            shares.push_back(gpu.lastPrunedShare());
            order.push_back(t.orderMs);
        }
        const double ms = median(wall);
        j["steps"] = o.steps;
        j["median_ms"] = ms;
        j["min_ms"] = wall.empty() ? 0.0 : *std::min_element(wall.begin(), wall.end());
        j["max_ms"] = wall.empty() ? 0.0 : *std::max_element(wall.begin(), wall.end());
        j["steps_per_s"] = ms > 0 ? 1e3 / ms : 0.0;
        j["cells_per_s"] = ms > 0 ? double(o.n) / (ms / 1e3) : 0.0;
        j["assign_ms"] = median(assign);
        j["exact_scan_ms"] = median(scan);  // of assign_ms
        j["accumulate_ms"] = median(accumulate);
        j["smooth_ms"] = median(smooth);
        j["knn_kernel"] = gpu.lastKernel();
        // The nearest kernel's products: by warpgroup MMA or by m16n8k16 (SEPAL_NEAREST_WGMMA=0);
        // none where another kernel searched.
        j["nearest_products"] = gpu.lastKernel() != "nearest"                ? "none"
                                : cuda::nearestUsesWarpgroupProducts(int(g)) ? "warpgroup"
                                                                             : "m16n8k16";
        j["sums_in"] = gpu.lastSumMode();
        j["exact_scans"] = median(scans);  // cells the nearest kernel scanned exactly
        // Cells whose lone candidate the nearest kernel took without measuring its distance.
        j["lone_cells"] = median(lone);
        // Cells whose bounds kept their landmark without a search (SEPAL_TRAIN_BOUNDS=0: none),
        // per timed step.
        j["kept_cells"] = kept;
        // The share of the nearest pass's products each timed step computed (1: every landmark;
        // less where the pruned pass left groups out; SEPAL_TRAIN_PRUNE=0: always 1).
        j["product_share"] = shares;
        j["order_ms"] = order;  // of each timed step's assign_ms: the rows put in order
        j["assign_ms_each"] = assign;
        j["step_ms"] = wall;
        j["bounds"] = !std::getenv("SEPAL_TRAIN_BOUNDS") ||
                      std::string(std::getenv("SEPAL_TRAIN_BOUNDS")) != "0";
        j["skipped"] = first.skipped;
        // NaN (null in JSON) after a step that left distances to the sums, without --inertia.
        j["inertia_first"] = first.inertia;
        j["inertia_last"] = inertia.empty() ? first.inertia : inertia.back();
        j["upload_ms"] = uploadMs;
        j["device_mb"] = double(gpu.deviceBytes()) / 1e6;
    } catch (const std::exception& e) {
        j["error"] = e.what();
    }
    print(j);
}

/// Landmarks of the model that no landmark of lower index equals (all coordinates).
size_t distinctLandmarks(const LandmarkModel& model) {
    const size_t g = model.count(), d = model.dim;
    std::vector<size_t> order(g);
    for (size_t j = 0; j < g; ++j) order[j] = j;
    auto row = [&](size_t j) { return model.high.begin() + long(j * d); };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::lexicographical_compare(row(a), row(a) + long(d), row(b), row(b) + long(d));
    });
    size_t distinct = g > 0 ? 1 : 0;
    for (size_t i = 1; i < g; ++i)
        if (!std::equal(row(order[i]), row(order[i]) + long(d), row(order[i - 1]))) ++distinct;
    return distinct;
}

/// The app's training frames' other device work: after each epoch, the next slice of the cells
/// (a 1/frames share, as GpuProjection's training frames) projected through the epoch's
/// landmarks by the resident projector with the app's EmbedSOM parameters, with its phases.
class SliceProjection {
  public:
    SliceProjection(const std::vector<float>& x, size_t n, size_t d, size_t frames,
                    const std::string& kernel)
        : m_n(n), m_count((n + frames - 1) / frames), m_projector(kernel) {
        m_out.reserve(2 * n);
        m_projector.setPoints(x.data(), n, d);
        m_projector.enableTiming(true);
    }
    /// Projects the next slice; its wall ms (after the device finished) and phases into j's lists.
    void project(const LandmarkModel& model, nlohmann::json& j) {
        if (m_cursor >= m_n) m_cursor = 0;
        const size_t count = std::min(m_count, m_n - m_cursor);
        const auto t0 = std::chrono::steady_clock::now();
        m_projector.projectRangeToDevice(model, EmbedSettings{}.params, m_cursor, count,
                                         m_out.get());
        const double wall = msSince(t0);
        m_cursor += count;
        const cuda::PhaseTimes t = m_projector.lastTimes();
        j["slice_ms"].push_back(wall);
        j["slice_knn_ms"].push_back(t.knnMs);
        j["slice_project_ms"].push_back(t.projectMs);
        j["slice_candidates"].push_back(t.candidatesPerPoint);
        j["slice_exact_scans"].push_back(t.exactScans);
        j["slice_deferred"].push_back(t.deferredCells);
        j["slice_exact_form"].push_back(t.exactFormCells);
        j["slice_kernel"] = m_projector.lastKernel();
        j["slice_cells"] = m_count;
    }

  private:
    size_t m_n, m_count, m_cursor = 0;
    cuda::CudaProjector m_projector;
    cuda::DeviceBuffer<float> m_out;
};

/// The app's batch SOM (core's trainer over the whole-data steps, the Training window's
/// schedule) from the bench's start, `steps` epochs: each epoch's wall and device times, exact
/// scans and kept cells.
void runAppBatchSom(const TrainOptions& o, const std::vector<float>& x, size_t g) {
    nlohmann::json j = lineFor("app-schedule", o.n, o.d, g, "batch-som-app", "auto");
    try {
        const auto t0 = std::chrono::steady_clock::now();
        auto steps = cuda::makeCudaWholeDataSteps(TrainingCells{x.data(), o.n, o.d});
        j["upload_ms"] = msSince(t0);
        LandmarkModel model;
        model.resize(g, o.d);
        model.high = startLandmarks(x, o.n, o.d, g);
        const size_t side = size_t(std::ceil(std::sqrt(double(g))));
        for (size_t k = 0; k < g; ++k)
            model.low[2 * k] = float(k % side), model.low[2 * k + 1] = float(k / side);
        model.touch();
        SomParams p;  // the square neighbourhood and Chebyshev distances, as the app's
        p.epochs = size_t(o.steps);
        p.radiusStart = 1.5f;  // the Training window's Sigma, in map spacings (here 1)
        auto search = makeCpuNearestSearch();  // unused: every epoch runs on the device
        BatchSomTrainer trainer(p, *search);
        trainer.useWholeData(steps.get());
        std::vector<double> wall, device, scanMs, radius, shares;
        std::vector<size_t> scans, kept, lone, distinct;
        size_t nearestSteps = 0;
        std::unique_ptr<SliceProjection> slice;
        if (o.sliceFrames > 0) {
            slice = std::make_unique<SliceProjection>(x, o.n, o.d, o.sliceFrames, o.sliceKernel);
            nlohmann::json warm;  // auto measures its kernel once, as the app's first frames do
            slice->project(model, warm);
        }
        for (int e = 0; e < o.steps; ++e) {
            radius.push_back(trainer.radius());
            const WholeDataFigures before = steps->figures();
            const auto s0 = std::chrono::steady_clock::now();
            trainer.step(model, TrainingData{nullptr, 0, o.d});
            wall.push_back(msSince(s0));
            const WholeDataFigures f = steps->figures().since(before);
            device.push_back(f.deviceMs);
            scanMs.push_back(f.exactScanMs);
            scans.push_back(f.exactScans);
            kept.push_back(f.keptCells);
            lone.push_back(f.loneCells);
            shares.push_back(f.steps > 0 ? f.productShare / double(f.steps) : 1.0);
            nearestSteps += f.nearestSteps;
            distinct.push_back(distinctLandmarks(model));
            if (slice) slice->project(model, j);
        }
        j["steps"] = o.steps;
        j["median_ms"] = median(wall);
        j["step_ms"] = wall;
        j["device_ms"] = device;
        j["exact_scan_ms"] = scanMs;
        // The nearest pass's products where every epoch's search was that pass ("none" where no
        // epoch's was, "mixed" where some were).
        const char* products =
            cuda::nearestUsesWarpgroupProducts(int(g)) ? "warpgroup" : "m16n8k16";
        j["nearest_products"] = nearestSteps == 0                 ? "none"
                                : nearestSteps == size_t(o.steps) ? products
                                                                  : "mixed";
        j["exact_scans"] = scans;
        j["kept_cells"] = kept;
        j["lone_cells"] = lone;
        j["product_share"] = shares;  // of each epoch's nearest pass (1: every landmark)
        j["radius"] = radius;
        j["distinct_landmarks"] = distinct;
        if (slice) j["slice_median_ms"] = median(j["slice_ms"].get<std::vector<double>>());
    } catch (const std::exception& e) {
        j["error"] = e.what();
    }
    print(j);
}

void runTrain(const TrainOptions& o) {
    std::string why;
    if (!cuda::deviceAvailable(&why)) throw std::runtime_error("no usable CUDA device: " + why);
    auto t0 = std::chrono::steady_clock::now();
    const auto x = makeClusteredCells(o.n, o.d);
    std::fprintf(stderr, "cuda-train: %zu x %zu cells made in %.0f ms\n", o.n, o.d, msSince(t0));
    std::vector<std::string> modes;  // the resident step's
    for (const auto& mode : o.modes) {
        if (mode != "batch-som-app") {
            modes.push_back(mode);
            continue;
        }
        for (int g : o.gs) runAppBatchSom(o, x, size_t(g));
    }
    if (modes.empty()) return;
    for (const auto& knn : o.knns) {
        const double freeBefore = freeDeviceMb();
        t0 = std::chrono::steady_clock::now();
        cuda::TrainingStep gpu(x.data(), o.n, o.d, knn);
        gpu.measureInertia(o.inertia);
        const double uploadMs = msSince(t0);
        for (int g : o.gs)
            for (const auto& mode : modes)
                for (const auto& sums : o.sums) {
                    chooseSums(sums);
                    runResident(o, gpu, x, size_t(g), mode, knn, uploadMs, freeBefore);
                }
    }
}

void addCudaTrain(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "cuda-train", "one k-means or batch-SOM step over every cell on the GPU, cells resident");
    static TrainOptions o;
    sub->add_option("--n", o.n, "cells (default 10^8)");
    sub->add_option("-d", o.d, "dimensions (default 32)");
    sub->add_option("-g", o.gs, "landmarks (default 256 1024)");
    sub->add_option("--mode", o.modes,
                    "kmeans, batch-som or both (default); batch-som-app: the app's batch SOM "
                    "(its trainer and schedule, each epoch's figures)")
        ->check(CLI::IsMember({"kmeans", "batch-som", "batch-som-app"}));
    sub->add_option("--steps", o.steps, "steps timed per configuration (default 20)");
    sub->add_option("--knn", o.knns,
                    "nearest-landmark kernels, each run in turn: auto (default), nearest, "
                    "resident, parts, tensor, fused, bitonic");
    sub->add_option("--sums", o.sums,
                    "sums passes, each run in turn (repeat to alternate): sorted (default), "
                    "shared (one addition a point), fused (in the nearest kernel's pass)")
        ->check(CLI::IsMember({"sorted", "shared", "fused"}));
    sub->add_flag("--inertia", o.inertia,
                  "measure the inertia of every step, the distances the bounds and the nearest "
                  "pass left included (as the trainers do not: the inertia is null without it "
                  "after such a step)");
    sub->add_option("--slice", o.sliceFrames,
                    "batch-som-app: after each epoch, project the next 1/N of the cells through "
                    "its landmarks, as the app's training frames do (N = 64 there)");
    sub->add_option("--slice-kernel", o.sliceKernel,
                    "the slices' projection kernel (default auto, as the app's)");
    sub->callback([] { runTrain(o); });
}

BenchRegistration trainCudaBench{addCudaTrain};

}  // namespace
}  // namespace sepal::bench

#endif  // SEPAL_HAVE_CUDA
