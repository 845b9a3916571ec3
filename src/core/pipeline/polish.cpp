#include "core/pipeline/polish.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/common/error.h"
#include "core/pipeline/polish_device.h"
#include "core/pipeline/polish_epoch.h"
#include "core/pipeline/polish_neighbours.h"
#include "core/pipeline/tsne_polish.h"
#include "core/train/umap_layout.h"

namespace sepal {

namespace {

constexpr uint32_t kNone = kNoNeighbour;
constexpr double kHalfBox = 30.0;  // the picture's half width while it is polished

/// Adds the seconds since `start` to `slot` (when timed) and restarts the clock.
void lap(double* slot, std::chrono::steady_clock::time_point& start) {
    const auto now = std::chrono::steady_clock::now();
    if (slot) *slot += std::chrono::duration<double>(now - start).count();
    start = now;
}

bool finiteRow(const float* x, size_t d) {
    for (size_t t = 0; t < d; ++t)
        if (!std::isfinite(x[t])) return false;
    return true;
}

}  // namespace

PolishGraph polishGraph(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t n,
                        size_t k) {
    PolishGraph graph;
    graph.n = n;
    graph.k = k;
    graph.stride = polishStride(n);
    graph.nbr.resize(k * graph.stride);
    graph.weight.assign(k * graph.stride, 0.0f);
    graph.weights.assign(graph.stride, 0.0f);
    const double target = std::log2(double(std::max<size_t>(k, 2)));
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < static_cast<long long>(graph.stride); ++ii) {
        const size_t i = size_t(ii);
        double dist[64];
        float w[64];
        size_t m = 0;
        while (i < n && m < k && nbr[i * k + m] != kNone) {
            dist[m] = std::sqrt(double(sq[i * k + m]));
            ++m;
        }
        if (m > 0) membershipStrengths(dist, m, target, w);
        for (size_t r = 0; r < k; ++r) {
            graph.nbr[r * graph.stride + i] = r < m ? nbr[i * k + r] : uint32_t(i);
            graph.weight[r * graph.stride + i] = r < m ? w[r] : 0.0f;
            if (r < m) graph.weights[i] += w[r];
        }
    }
    return graph;
}

bool polishPositions(const Matrix& points, const LandmarkModel& model, float* xy,
                     const PolishParams& params, NearestSearch& search) {
    if (params.epochs == 0 || points.rows == 0) return true;
    const size_t n = points.rows, d = points.cols, g = model.count();
    if (d != model.dim)
        throw InputError("polish: the events have " + std::to_string(d) +
                         " columns, the landmarks " + std::to_string(model.dim));
    const bool studentT = params.kernel == PolishKernel::StudentT;
    if (!studentT && (params.k < 1 || params.k > 64))
        throw InputError("polish: " + std::to_string(params.k) + " neighbours (1 to 64)");
    if (studentT && !(params.perplexity >= 1 && params.perplexity <= 100))
        throw InputError("polish: perplexity " + std::to_string(params.perplexity) + " (1 to 100)");
    if (params.negativeSamples > 8)
        throw InputError("polish: " + std::to_string(params.negativeSamples) +
                         " random cells per cell and epoch (0 to 8)");
    if (g == 0 || params.probes < 1) throw InputError("polish: no landmarks to find neighbours by");
    const size_t k = studentT ? size_t(std::ceil(3.0f * params.perplexity)) : params.k;
    std::vector<uint8_t> usable(n);
    std::vector<uint32_t> keep;
    for (size_t i = 0; i < n; ++i)
        if ((usable[i] = finiteRow(points.row(i), d) && std::isfinite(xy[2 * i]) &&
                         std::isfinite(xy[2 * i + 1])))
            keep.push_back(uint32_t(i));
    if (keep.size() < 2) return true;
    // t-SNE's three times the perplexity neighbours: as many landmarks' cells as hold about
    // three times that many candidates.
    size_t probes = params.probes;
    if (studentT)
        probes =
            std::max(probes, size_t(std::ceil(3.0 * double(k) * double(g) / double(keep.size()))));
    probes = std::min(probes, g);
    auto clock = std::chrono::steady_clock::now();
    std::vector<uint32_t> probe(n * probes);
    std::vector<float> probeDist(n * probes);
    search.search(points.data(), n, model.high.data(), g, d, probes, probe.data(),
                  probeDist.data());
    lap(params.times ? &params.times->search : nullptr, clock);
    // The device where one is given and takes this many neighbours: the same picture.
    PolishDevice* device = params.device && k <= params.device->mostNeighbours() &&
                                   params.device->fits(n, d, k, probes)
                               ? params.device
                               : nullptr;
    if (params.onProgress && !params.onProgress(0.0)) return false;  // a chance to stop
    // The CPU's neighbour search asks again every few dozen cells (it may run for a minute).
    const std::function<bool()> goOn = [&params] {
        return !params.onProgress || params.onProgress(0.0);
    };
    const CellLists lists =
        listCellsByLandmark(usable, probe, probes, g, device ? kDeviceMostPairs : kCpuMostPairs);
    lap(params.times ? &params.times->neighbours : nullptr, clock);
    if (studentT) {
        std::vector<uint32_t> nbr;
        std::vector<float> sq;
        if (device)
            device->neighbours(points, lists, probe, probes, k, nbr, sq);
        else if (!candidateNeighbours(points, lists, probe, probes, k, nbr, sq, goOn))
            return false;
        lap(params.times ? &params.times->neighbours : nullptr, clock);
        if (params.onProgress && !params.onProgress(0.0)) return false;
        TsnePolishParams t;
        t.iterations = params.epochs;
        t.perplexity = params.perplexity;
        t.onProgress = params.onProgress;
        const bool done = tsnePolish(nbr, sq, k, kNone, keep, xy, t);
        lap(params.times ? &params.times->graph : nullptr, clock);
        return done;
    }

    // UMAP's curve wants neighbours about a unit apart: the picture is scaled to a box of 60
    // (of 20 to 60 on the mammoth, 60 kept the most neighbourhoods).
    double cx = 0, cy = 0;
    for (uint32_t i : keep) cx += xy[2 * i], cy += xy[2 * i + 1];
    cx /= double(keep.size()), cy /= double(keep.size());
    double reach = 0;
    for (uint32_t i : keep)
        reach = std::max({reach, std::abs(xy[2 * i] - cx), std::abs(xy[2 * i + 1] - cy)});
    const double scale = reach > 0 ? kHalfBox / reach : 1.0;
    // Padded to a multiple of 8 (the graph's stride): the epochs take cells eight at a time.
    const size_t stride = polishStride(n);
    usable.resize(stride, 0);
    std::vector<float> y(2 * stride, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        y[2 * i] = float((xy[2 * i] - cx) * scale);
        y[2 * i + 1] = float((xy[2 * i + 1] - cy) * scale);
    }
    const CurveParams curve = fitCurve(params.minDist, 1.0);
    PolishStep step;
    step.a = float(curve.a), step.b = float(curve.b);
    step.repulsion = params.repulsion;
    step.negativeSamples = params.negativeSamples;
    step.seed = params.seed;
    std::vector<float> rates(params.epochs);
    for (size_t epoch = 0; epoch < params.epochs; ++epoch)
        rates[epoch] = params.learningRate * (1.0f - float(epoch) / float(params.epochs));
    if (device) {
        // Neighbours, graph and epochs on the device: only the positions come back.
        if (!device->polish(points, lists, probe, probes, k, keep, y, step, rates,
                            params.onProgress, params.times))
            return false;
        clock = std::chrono::steady_clock::now();
    } else {
        std::vector<uint32_t> nbr;
        std::vector<float> sq;
        if (!candidateNeighbours(points, lists, probe, probes, k, nbr, sq, goOn)) return false;
        lap(params.times ? &params.times->neighbours : nullptr, clock);
        if (params.onProgress && !params.onProgress(0.0)) return false;
        const PolishGraph graph = polishGraph(nbr, sq, n, k);
        lap(params.times ? &params.times->graph : nullptr, clock);
        std::vector<float> next(2 * stride, 0.0f);
        for (size_t epoch = 0; epoch < params.epochs; ++epoch) {
            step.epoch = epoch;
            step.rate = rates[epoch];
            polishEpoch(graph, usable, keep, y.data(), next.data(), step);
            y.swap(next);
            if (params.onProgress && !params.onProgress(double(epoch + 1) / double(params.epochs)))
                return false;
        }
    }
    lap(params.times ? &params.times->epochs : nullptr, clock);
    for (uint32_t i : keep) {
        xy[2 * i] = float(y[2 * i] / scale + cx);
        xy[2 * i + 1] = float(y[2 * i + 1] / scale + cy);
    }
    return true;
}

}  // namespace sepal
