// sepal-bench cuda-splat: the point layer drawn by CUDA (cuda/point_splats.h) from positions and
// colours already on the device, as the desktop application draws 10^7 to 10^8 cells: time per
// complete picture (median of --reps, CUDA events not needed: draw() returns when done), whole
// ("whole") and as updates where some cells changed since the last picture: a training frame's
// slice ("slice": a range of the cells jumps elsewhere; past an eighth of the cells also
// "slice-no-backoff", every picture trying an update) and a drag ("cluster": one cluster's cells
// move a few pixels).

#ifdef SEPAL_HAVE_CUDA

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_registry.h"
#include "cuda/cuda_backend.h"
#include "cuda/device_buffer.h"
#include "cuda/point_splats.h"

namespace sepal::bench {
namespace {

struct Options {
    std::vector<size_t> ns{10000000};
    std::vector<float> sizes{1, 3};
    int width = 1600, height = 1000;
    float alpha = 0.3f;
    int reps = 10;
    std::vector<double> changed{1.0 / 64, 1.0 / 16};
};

/// Median, least and most of the timed pictures in a JSON line of the bench.
void report(std::vector<double> ms, size_t n, float size, const Options& o, const char* pattern,
            const cuda::CudaSplats& splats) {
    std::sort(ms.begin(), ms.end());
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "cuda_splat";
    j["n"] = n;
    j["point_size"] = size;
    j["width"] = o.width;
    j["height"] = o.height;
    j["pattern"] = pattern;
    j["updated"] = splats.lastWasUpdate();
    j["drawn_cells"] = splats.lastDrawnCells();
    j["updates_tried"] = splats.updatesTried();
    j["median_ms"] = ms[ms.size() / 2];
    j["min_ms"] = ms.front();
    j["max_ms"] = ms.back();
    j["cells_per_s"] = double(n) / (ms[ms.size() / 2] * 1e-3);
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

/// Milliseconds of one picture.
double timedDraw(cuda::CudaSplats& splats, const cuda::SplatInput& in, uint8_t* out) {
    const auto t0 = std::chrono::steady_clock::now();
    splats.draw(in, out);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run(const Options& o) {
    std::string why;
    if (!cuda::deviceAvailable(&why)) throw std::runtime_error("no usable CUDA device: " + why);
    for (size_t n : o.ns) {
        // Twenty blobs of cells over the view (a picture's worth of clusters), colours by blob.
        std::vector<float> xy(2 * n);
        std::vector<uint8_t> rgba(4 * n);
        std::mt19937 rng(3);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> centres(40);
        for (auto& c : centres) c = 0.7f * std::uniform_real_distribution<float>(-1, 1)(rng);
        for (size_t i = 0; i < n; ++i) {
            const size_t b = (i * 2654435761u) % 20;
            xy[2 * i] = centres[2 * b] + 0.08f * normal(rng);
            xy[2 * i + 1] = centres[2 * b + 1] + 0.08f * normal(rng);
            rgba[4 * i] = uint8_t(b * 12), rgba[4 * i + 1] = uint8_t(255 - b * 12);
            rgba[4 * i + 2] = 128, rgba[4 * i + 3] = 255;
        }
        cuda::DeviceBuffer<float> dxy;
        cuda::DeviceBuffer<uint8_t> drgba, dout;
        dxy.reserve(xy.size());
        drgba.reserve(rgba.size());
        dout.reserve(size_t(o.width) * o.height * 4);
        cudaMemcpy(dxy.get(), xy.data(), xy.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(drgba.get(), rgba.data(), rgba.size(), cudaMemcpyHostToDevice);
        // The changed positions: a slice (a range of cells takes other cells' places) or a
        // cluster moved by about 3 pixels.
        std::vector<std::pair<std::string, std::vector<float>>> changes;
        for (double f : o.changed) {
            std::vector<float> moved = xy;
            const size_t count = std::min(n, size_t(f * double(n)));
            for (size_t i = 0; i < count; ++i) {
                const size_t from = (i * 7919 + n / 3) % n;
                moved[2 * i] = xy[2 * from], moved[2 * i + 1] = xy[2 * from + 1];
            }
            // Past an eighth the update gives up: with and without the backoff.
            if (f > 0.125) changes.emplace_back("slice-no-backoff", moved);
            changes.emplace_back("slice", std::move(moved));
        }
        std::vector<float> dragged = xy;
        for (size_t i = 0; i < n; ++i)
            if ((i * 2654435761u) % 20 == 0) dragged[2 * i] += 0.004f;
        changes.emplace_back("cluster", std::move(dragged));
        cuda::DeviceBuffer<float> dmoved;
        dmoved.reserve(xy.size());
        for (float size : o.sizes) {
            cuda::SplatInput in;
            in.xy = dxy.get(), in.rgba = drgba.get(), in.n = n;
            in.pointSize = size, in.alpha = o.alpha, in.width = o.width, in.height = o.height;
            cuda::CudaSplats whole;
            whole.setUpdates(false);
            whole.draw(in, dout.get());  // warm-up
            std::vector<double> ms;
            for (int r = 0; r < o.reps; ++r) ms.push_back(timedDraw(whole, in, dout.get()));
            report(ms, n, size, o, "whole", whole);
            for (const auto& [pattern, moved] : changes) {
                cudaMemcpy(dmoved.get(), moved.data(), moved.size() * 4, cudaMemcpyHostToDevice);
                cuda::CudaSplats splats;
                splats.setBackoff(pattern != "slice-no-backoff");
                cuda::SplatInput back = in;
                back.xy = dmoved.get();
                splats.draw(in, dout.get());  // the view's first picture, then one kept
                splats.draw(in, dout.get());
                ms.clear();
                for (int r = 0; r < o.reps; ++r) {
                    ms.push_back(timedDraw(splats, back, dout.get()));
                    ms.push_back(timedDraw(splats, in, dout.get()));
                }
                report(ms, n, size, o, pattern.c_str(), splats);
            }
        }
    }
}

void addCudaSplat(CLI::App& app) {
    auto* sub = app.add_subcommand("cuda-splat", "the point layer drawn by CUDA: ms per picture");
    static Options o;
    sub->add_option("--n", o.ns, "cells (default 10^7)");
    sub->add_option("--size", o.sizes, "point sizes in pixels (default 1 3)");
    sub->add_option("--width", o.width, "picture width (default 1600)");
    sub->add_option("--height", o.height, "picture height (default 1000)");
    sub->add_option("--alpha", o.alpha, "opacity of a splat (default 0.3)");
    sub->add_option("--reps", o.reps, "timed pictures (default 10)");
    sub->add_option("--changed", o.changed,
                    "shares of the cells a slice update moves (default 1/64 1/16)");
    sub->callback([] { run(o); });
}

BenchRegistration splatCudaBench{addCudaSplat};

}  // namespace
}  // namespace sepal::bench

#endif  // SEPAL_HAVE_CUDA
