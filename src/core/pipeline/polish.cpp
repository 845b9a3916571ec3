#include "core/pipeline/polish.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/common/error.h"
#include "core/pipeline/polish_epoch.h"
#include "core/pipeline/tsne_polish.h"
#include "core/train/umap_layout.h"

namespace sepal {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kHalfBox = 30.0;    // the picture's half width while it is polished
constexpr double kMostPairs = 2e10;  // neighbour candidates compared, at most (about a minute)

bool finiteRow(const float* x, size_t d) {
    for (size_t t = 0; t < d; ++t)
        if (!std::isfinite(x[t])) return false;
    return true;
}

/// Each usable cell's k nearest usable cells (squared distances, ascending, ties by index)
/// among the cells whose nearest landmark is one of its `probes` nearest landmarks.
void candidateNeighbours(const Matrix& points, const std::vector<uint8_t>& usable,
                         const std::vector<uint32_t>& probe, size_t probes, size_t g, size_t k,
                         std::vector<uint32_t>& nbr, std::vector<float>& sq) {
    const size_t n = points.rows, d = points.cols;
    // Cells listed by nearest landmark (a counting sort: ascending cells in each list).
    std::vector<size_t> offset(g + 1, 0);
    for (size_t i = 0; i < n; ++i)
        if (usable[i]) ++offset[probe[i * probes] + 1];
    for (size_t u = 0; u < g; ++u) offset[u + 1] += offset[u];
    std::vector<uint32_t> cells(offset[g]);
    std::vector<size_t> at(offset.begin(), offset.end() - 1);
    for (size_t i = 0; i < n; ++i)
        if (usable[i]) cells[at[probe[i * probes]]++] = uint32_t(i);
    // The search compares each cell with every cell of its probes' lists: refused when that
    // would run for minutes (a few landmarks for millions of cells).
    double pairs = 0;
    size_t longest = 0;
    for (size_t u = 0; u < g; ++u) longest = std::max(longest, offset[u + 1] - offset[u]);
    for (size_t i = 0; i < n; ++i)
        for (size_t p = 0; usable[i] && p < probes; ++p)
            pairs += double(offset[probe[i * probes + p] + 1] - offset[probe[i * probes + p]]);
    if (pairs > kMostPairs) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "polish: finding the cells' neighbours among those of their nearest "
                      "landmarks would compare %.1e pairs; train more landmarks (about one per "
                      "2,000 cells) or polish fewer cells",
                      pairs);
        throw InputError(text);
    }
    // The listed cells' rows column by column, so that a list's distances to a cell are a few
    // passes over contiguous floats.
    const size_t listed = cells.size();
    std::vector<float> columns(d * listed);
#pragma omp parallel for schedule(static)
    for (long long cc = 0; cc < static_cast<long long>(listed); ++cc)
        for (size_t t = 0; t < d; ++t)
            columns[t * listed + size_t(cc)] = points.row(cells[size_t(cc)])[t];
    nbr.assign(n * k, kNone);
    sq.assign(n * k, std::numeric_limits<float>::infinity());
#pragma omp parallel
    {
        std::vector<float> dist(longest);
#pragma omp for schedule(dynamic, 256)
        for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
            const size_t i = size_t(ii);
            if (!usable[i]) continue;
            const float* x = points.row(i);
            uint32_t* id = nbr.data() + i * k;
            float* key = sq.data() + i * k;
            size_t m = 0;
            for (size_t p = 0; p < probes; ++p) {
                const uint32_t u = probe[i * probes + p];
                const size_t first = offset[u], count = offset[u + 1] - first;
                std::fill_n(dist.begin(), count, 0.0f);
                for (size_t t = 0; t < d; ++t) {
                    const float* column = columns.data() + t * listed + first;
                    const float xt = x[t];
                    for (size_t c = 0; c < count; ++c) {
                        const float e = xt - column[c];
                        dist[c] += e * e;
                    }
                }
                for (size_t c = 0; c < count; ++c) {
                    const uint32_t j = cells[first + c];
                    const float s = dist[c];
                    if (m == k && !(s < key[k - 1] || (s == key[k - 1] && j < id[k - 1]))) continue;
                    if (j == i) continue;
                    size_t pos = m < k ? m++ : k - 1;
                    while (pos > 0 &&
                           (s < key[pos - 1] || (s == key[pos - 1] && j < id[pos - 1]))) {
                        key[pos] = key[pos - 1];
                        id[pos] = id[pos - 1];
                        --pos;
                    }
                    key[pos] = s;
                    id[pos] = j;
                }
            }
        }
    }
}

/// The neighbours as the epochs take them: UMAP's membership strengths of each cell's
/// neighbours (membershipStrengths), in places padded to a multiple of 8.
PolishGraph polishGraph(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t n,
                        size_t k) {
    PolishGraph graph;
    graph.n = n;
    graph.k = k;
    graph.stride = (n + 7) / 8 * 8;
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

}  // namespace

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
    std::vector<uint32_t> probe(n * probes);
    std::vector<float> probeDist(n * probes);
    search.search(points.data(), n, model.high.data(), g, d, probes, probe.data(),
                  probeDist.data());
    std::vector<uint32_t> nbr;
    std::vector<float> sq;
    candidateNeighbours(points, usable, probe, probes, g, k, nbr, sq);
    if (params.onProgress && !params.onProgress(0.0)) return false;
    if (studentT) {
        TsnePolishParams t;
        t.iterations = params.epochs;
        t.perplexity = params.perplexity;
        t.onProgress = params.onProgress;
        return tsnePolish(nbr, sq, k, kNone, keep, xy, t);
    }
    const PolishGraph graph = polishGraph(nbr, sq, n, k);

    // UMAP's curve wants neighbours about a unit apart: the picture is scaled to a box of 60
    // (of 20 to 60 on the mammoth, 60 kept the most neighbourhoods).
    double cx = 0, cy = 0;
    for (uint32_t i : keep) cx += xy[2 * i], cy += xy[2 * i + 1];
    cx /= double(keep.size()), cy /= double(keep.size());
    double reach = 0;
    for (uint32_t i : keep)
        reach = std::max({reach, std::abs(xy[2 * i] - cx), std::abs(xy[2 * i + 1] - cy)});
    const double scale = reach > 0 ? kHalfBox / reach : 1.0;
    // Padded to the graph's stride: the epochs take cells eight at a time.
    usable.resize(graph.stride, 0);
    std::vector<float> y(2 * graph.stride, 0.0f), next(2 * graph.stride, 0.0f);
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
    for (size_t epoch = 0; epoch < params.epochs; ++epoch) {
        step.epoch = epoch;
        step.rate = params.learningRate * (1.0f - float(epoch) / float(params.epochs));
        polishEpoch(graph, usable, keep, y.data(), next.data(), step);
        y.swap(next);
        if (params.onProgress && !params.onProgress(double(epoch + 1) / double(params.epochs)))
            return false;
    }
    for (uint32_t i : keep) {
        xy[2 * i] = float(y[2 * i] / scale + cx);
        xy[2 * i + 1] = float(y[2 * i + 1] / scale + cy);
    }
    return true;
}

}  // namespace sepal
