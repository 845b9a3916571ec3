#include "core/pipeline/polish.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/common/error.h"
#include "core/train/sampling.h"
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
    nbr.assign(n * k, kNone);
    sq.assign(n * k, std::numeric_limits<float>::infinity());
#pragma omp parallel for schedule(dynamic, 256)
    for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
        const size_t i = size_t(ii);
        if (!usable[i]) continue;
        const float* x = points.row(i);
        uint32_t* id = nbr.data() + i * k;
        float* key = sq.data() + i * k;
        size_t m = 0;
        for (size_t p = 0; p < probes; ++p) {
            const uint32_t u = probe[i * probes + p];
            for (size_t c = offset[u]; c < offset[u + 1]; ++c) {
                const uint32_t j = cells[c];
                if (j == i) continue;
                const float* y = points.row(j);
                float s = 0.0f;
                for (size_t t = 0; t < d; ++t) s += (x[t] - y[t]) * (x[t] - y[t]);
                if (m == k && !(s < key[k - 1] || (s == key[k - 1] && j < id[k - 1]))) continue;
                size_t pos = m < k ? m++ : k - 1;
                while (pos > 0 && (s < key[pos - 1] || (s == key[pos - 1] && j < id[pos - 1]))) {
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

/// UMAP's membership strengths of each cell's neighbours (membershipStrengths).
std::vector<float> neighbourWeights(const std::vector<uint32_t>& nbr, const std::vector<float>& sq,
                                    size_t n, size_t k) {
    std::vector<float> w(n * k, 0.0f);
    const double target = std::log2(double(std::max<size_t>(k, 2)));
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
        const size_t i = size_t(ii);
        double dist[64];
        size_t m = 0;
        while (m < k && nbr[i * k + m] != kNone) {
            dist[m] = std::sqrt(double(sq[i * k + m]));
            ++m;
        }
        if (m > 0) membershipStrengths(dist, m, target, w.data() + i * k);
    }
    return w;
}

float clip(float v) {
    return std::clamp(v, -4.0f, 4.0f);
}

}  // namespace

void polishPositions(const Matrix& points, const LandmarkModel& model, float* xy,
                     const PolishParams& params, NearestSearch& search) {
    if (params.epochs == 0 || points.rows == 0) return;
    const size_t n = points.rows, d = points.cols, g = model.count();
    if (d != model.dim)
        throw InputError("polish: the events have " + std::to_string(d) +
                         " columns, the landmarks " + std::to_string(model.dim));
    if (params.k < 1 || params.k > 64)
        throw InputError("polish: " + std::to_string(params.k) + " neighbours (1 to 64)");
    if (g == 0 || params.probes < 1) throw InputError("polish: no landmarks to find neighbours by");
    const size_t probes = std::min(params.probes, g), k = params.k;
    std::vector<uint8_t> usable(n);
    std::vector<uint32_t> keep;
    for (size_t i = 0; i < n; ++i)
        if ((usable[i] = finiteRow(points.row(i), d) && std::isfinite(xy[2 * i]) &&
                         std::isfinite(xy[2 * i + 1])))
            keep.push_back(uint32_t(i));
    if (keep.size() < 2) return;
    std::vector<uint32_t> probe(n * probes);
    std::vector<float> probeDist(n * probes);
    search.search(points.data(), n, model.high.data(), g, d, probes, probe.data(),
                  probeDist.data());
    std::vector<uint32_t> nbr;
    std::vector<float> sq;
    candidateNeighbours(points, usable, probe, probes, g, k, nbr, sq);
    const std::vector<float> w = neighbourWeights(nbr, sq, n, k);

    // UMAP's curve wants neighbours about a unit apart: the picture is scaled to a box of 60
    // (of 20 to 60 on the mammoth, 60 kept the most neighbourhoods).
    double cx = 0, cy = 0;
    for (uint32_t i : keep) cx += xy[2 * i], cy += xy[2 * i + 1];
    cx /= double(keep.size()), cy /= double(keep.size());
    double reach = 0;
    for (uint32_t i : keep)
        reach = std::max({reach, std::abs(xy[2 * i] - cx), std::abs(xy[2 * i + 1] - cy)});
    const double scale = reach > 0 ? kHalfBox / reach : 1.0;
    std::vector<float> y(2 * n), next(2 * n);
    for (size_t i = 0; i < n; ++i) {
        y[2 * i] = float((xy[2 * i] - cx) * scale);
        y[2 * i + 1] = float((xy[2 * i + 1] - cy) * scale);
    }
    const CurveParams curve = fitCurve(params.minDist, 1.0);
    const float a = float(curve.a), b = float(curve.b);
    for (size_t epoch = 0; epoch < params.epochs; ++epoch) {
        const float rate = params.learningRate * (1.0f - float(epoch) / float(params.epochs));
        // Every cell moves from the same positions (y to next): thread-count independent.
#pragma omp parallel for schedule(static)
        for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
            const size_t i = size_t(ii);
            next[2 * i] = y[2 * i], next[2 * i + 1] = y[2 * i + 1];
            if (!usable[i]) continue;
            float gx = 0, gy = 0, wsum = 0;
            for (size_t r = 0; r < k; ++r) {
                const uint32_t j = nbr[i * k + r];
                if (j == kNone) break;
                const float dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
                const float d2 = dx * dx + dy * dy;
                wsum += w[i * k + r];
                if (d2 <= 0) continue;
                const float pb = std::pow(d2, b);
                const float c = -2.0f * a * b * pb / d2 / (1.0f + a * pb) * w[i * k + r];
                gx += clip(c * dx), gy += clip(c * dy);
            }
            // Repulsion from random cells: UMAP draws negativeSamples for each of the (on average
            // wsum) times an epoch samples the cell's edges; each draw here stands for wsum,
            // damped by `repulsion` (a polish keeps EmbedSOM's spacing rather than UMAP's).
            SplitMix rng(params.seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ULL) ^ (epoch << 40));
            for (size_t s = 0; s < params.negativeSamples; ++s) {
                const uint32_t j = keep[rng.below(keep.size())];
                if (j == i) continue;
                const float dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
                const float d2 = dx * dx + dy * dy;
                if (d2 <= 0) continue;
                const float c = 2.0f * b / ((0.001f + d2) * (1.0f + a * std::pow(d2, b)));
                gx += params.repulsion * wsum * clip(c * dx);
                gy += params.repulsion * wsum * clip(c * dy);
            }
            next[2 * i] = y[2 * i] + rate * gx;
            next[2 * i + 1] = y[2 * i + 1] + rate * gy;
        }
        y.swap(next);
    }
    for (uint32_t i : keep) {
        xy[2 * i] = float(y[2 * i] / scale + cx);
        xy[2 * i + 1] = float(y[2 * i + 1] / scale + cy);
    }
}

}  // namespace sepal
