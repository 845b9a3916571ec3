#include "core/pipeline/tsne_polish.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/pipeline/grid_repulsion.h"
#include "core/train/tsne_layout.h"

namespace sepal {

namespace {

/// t-SNE's joint affinities p_ij = (p_j|i + p_i|j) / (2 N), rows by cell, columns ascending.
struct Affinities {
    std::vector<size_t> offset;  // n + 1
    std::vector<uint32_t> column;
    std::vector<float> value;
};

Affinities jointAffinities(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t k,
                           uint32_t none, const std::vector<uint32_t>& keep, size_t n,
                           float perplexity) {
    // Each cell's conditional probabilities over the neighbours it found.
    std::vector<float> cond(n * k, 0.0f);
    std::vector<size_t> found(n, 0);
#pragma omp parallel for schedule(dynamic, 256)
    for (long long cc = 0; cc < static_cast<long long>(keep.size()); ++cc) {
        const size_t i = keep[size_t(cc)];
        size_t m = 0;
        while (m < k && nbr[i * k + m] != none) ++m;
        found[i] = m;
        if (m == 0) continue;
        // A perplexity above a third of the neighbours would spread the weight evenly.
        const float perp = std::clamp(float(m) / 3.0f, 1.0f, perplexity);
        calibrateRow(sq.data() + i * k, m, perp, cond.data() + i * k);
    }
    Affinities a;
    a.offset.assign(n + 1, 0);
    for (uint32_t i : keep)
        for (size_t r = 0; r < found[i]; ++r) {
            ++a.offset[i + 1];
            ++a.offset[nbr[i * k + r] + 1];
        }
    for (size_t i = 0; i < n; ++i) a.offset[i + 1] += a.offset[i];
    // 8 bytes a listed pair: 2 k of them a cell (about 1.5 KB at perplexity 30).
    std::vector<std::pair<uint32_t, float>> entries(a.offset[n]);
    std::vector<size_t> at(a.offset.begin(), a.offset.end() - 1);
    const double norm = 1.0 / (2.0 * double(keep.size()));
    for (uint32_t i : keep)
        for (size_t r = 0; r < found[i]; ++r) {
            const uint32_t j = nbr[i * k + r];
            const float p = float(double(cond[i * k + r]) * norm);
            entries[at[i]++] = {j, p};
            entries[at[j]++] = {i, p};
        }
    // Each row's columns in order, a pair listed by both cells summed into one entry.
    std::vector<size_t> kept(n, 0);
#pragma omp parallel for schedule(dynamic, 256)
    for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
        const size_t i = size_t(ii);
        auto first = entries.begin() + std::ptrdiff_t(a.offset[i]);
        auto last = entries.begin() + std::ptrdiff_t(a.offset[i + 1]);
        std::sort(first, last);
        size_t out = 0;
        for (auto e = first; e != last; ++e) {
            if (out > 0 && first[std::ptrdiff_t(out - 1)].first == e->first)
                first[std::ptrdiff_t(out - 1)].second += e->second;
            else
                first[std::ptrdiff_t(out++)] = *e;
        }
        kept[i] = out;
    }
    std::vector<size_t> offset(n + 1, 0);
    for (size_t i = 0; i < n; ++i) offset[i + 1] = offset[i] + kept[i];
    a.column.resize(offset[n]);
    a.value.resize(offset[n]);
    for (size_t i = 0; i < n; ++i)
        for (size_t e = 0; e < kept[i]; ++e) {
            a.column[offset[i] + e] = entries[a.offset[i] + e].first;
            a.value[offset[i] + e] = entries[a.offset[i] + e].second;
        }
    a.offset = std::move(offset);
    return a;
}

}  // namespace

void tsnePolish(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t k,
                uint32_t none, const std::vector<uint32_t>& keep, float* y,
                const TsnePolishParams& params) {
    if (!(params.perplexity >= 1))
        throw InputError("t-SNE polish: perplexity " + std::to_string(params.perplexity) +
                         " (at least 1)");
    const size_t m = keep.size();
    if (m < 2 || params.iterations == 0 || k == 0) return;
    const size_t n = nbr.size() / k;
    const Affinities p = jointAffinities(nbr, sq, k, none, keep, n, params.perplexity);
    // t-SNE's frame: the picture centred, its spread along x startSpread.
    double cx = 0, cy = 0;
    for (uint32_t i : keep) cx += y[2 * i], cy += y[2 * i + 1];
    cx /= double(m), cy /= double(m);
    double var = 0;
    for (uint32_t i : keep) var += (y[2 * i] - cx) * (y[2 * i] - cx);
    const double sd = std::sqrt(var / double(m));
    const double scale = sd > 0 ? double(params.startSpread) / sd : 1.0;
    std::vector<float> pos(2 * n, 0.0f);
    for (uint32_t i : keep) {
        pos[2 * i] = float((y[2 * i] - cx) * scale);
        pos[2 * i + 1] = float((y[2 * i + 1] - cy) * scale);
    }
    // The learning rate of interpolation-based t-SNE's defaults; momentum 0.8 throughout (the
    // start is already laid out: no early phase), and the per-coordinate gains of t-SNE.
    const double rate = std::max(200.0, double(m) / 12.0);
    std::vector<double> gain(2 * m, 1.0), update(2 * m, 0.0);
    std::vector<float> next(2 * m);
    GridRepulsion grid(params.spacing);
    RepulsionSums rep;
    for (size_t it = 0; it < params.iterations; ++it) {
        grid.compute(pos.data(), keep, rep);
        const double invZ = rep.z > 0 ? 1.0 / rep.z : 0.0;
#pragma omp parallel for schedule(static)
        for (long long cc = 0; cc < static_cast<long long>(m); ++cc) {
            const size_t c = size_t(cc);
            const uint32_t i = keep[c];
            // In float: the step's error is the grid's, far above float's (most of the polish's
            // time is this loop).
            const float xi = pos[2 * i], yi = pos[2 * i + 1];
            float ax = 0, ay = 0;
            for (size_t e = p.offset[i]; e < p.offset[i + 1]; ++e) {
                const uint32_t j = p.column[e];
                const float dx = xi - pos[2 * j], dy = yi - pos[2 * j + 1];
                const float w = p.value[e] / (1.0f + dx * dx + dy * dy);
                ax += w * dx, ay += w * dy;
            }
            const double g[2] = {4.0 * (double(ax) - rep.x[c] * invZ),
                                 4.0 * (double(ay) - rep.y[c] * invZ)};
            for (int t = 0; t < 2; ++t) {
                double& gn = gain[2 * c + size_t(t)];
                double& up = update[2 * c + size_t(t)];
                gn = (g[t] > 0) != (up > 0) ? gn + 0.2 : std::max(gn * 0.8, 0.01);
                up = 0.8 * up - rate * gn * g[t];
                next[2 * c + size_t(t)] = float(pos[2 * i + size_t(t)] + up);
            }
        }
        for (size_t c = 0; c < m; ++c) {
            pos[2 * keep[c]] = next[2 * c];
            pos[2 * keep[c] + 1] = next[2 * c + 1];
        }
    }
    for (uint32_t i : keep) {
        y[2 * i] = float(pos[2 * i] / scale + cx);
        y[2 * i + 1] = float(pos[2 * i + 1] / scale + cy);
    }
}

}  // namespace sepal
