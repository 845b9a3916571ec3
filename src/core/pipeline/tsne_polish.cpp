#include "core/pipeline/tsne_polish.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/pipeline/grid_repulsion.h"
#include "core/pipeline/tsne_attraction.h"
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

/// x and y's 16 lowest bits interleaved: cells near each other in the picture get near keys.
uint32_t mortonKey(uint32_t x, uint32_t y) {
    uint32_t key = 0;
    for (int b = 0; b < 16; ++b) key |= ((x >> b) & 1u) << (2 * b) | ((y >> b) & 1u) << (2 * b + 1);
    return key;
}

/// The listed cells in the order of their place in the picture y: the neighbours whose
/// positions each step reads then lie close together in memory (most of the polish's time was
/// those reads, at random places of a picture of 50,000 cells).
std::vector<uint32_t> pictureOrder(const std::vector<uint32_t>& keep, const float* y) {
    float lowX = y[2 * keep[0]], highX = lowX, lowY = y[2 * keep[0] + 1], highY = lowY;
    for (uint32_t i : keep) {
        lowX = std::min(lowX, y[2 * i]), highX = std::max(highX, y[2 * i]);
        lowY = std::min(lowY, y[2 * i + 1]), highY = std::max(highY, y[2 * i + 1]);
    }
    const float sx = highX > lowX ? 1023.0f / (highX - lowX) : 0.0f;
    const float sy = highY > lowY ? 1023.0f / (highY - lowY) : 0.0f;
    std::vector<std::pair<uint32_t, uint32_t>> keyed(keep.size());
    for (size_t c = 0; c < keep.size(); ++c) {
        const uint32_t i = keep[c];
        keyed[c] = {
            mortonKey(uint32_t((y[2 * i] - lowX) * sx), uint32_t((y[2 * i + 1] - lowY) * sy)), i};
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<uint32_t> order(keep.size());
    for (size_t c = 0; c < keep.size(); ++c) order[c] = keyed[c].second;
    return order;
}

/// The rows of `order`'s cells, in that order, their columns the neighbours' places in it.
Affinities inOrder(const Affinities& p, const std::vector<uint32_t>& order, size_t n) {
    std::vector<uint32_t> place(n, 0);
    for (size_t c = 0; c < order.size(); ++c) place[order[c]] = uint32_t(c);
    Affinities q;
    q.offset.assign(order.size() + 1, 0);
    for (size_t c = 0; c < order.size(); ++c)
        q.offset[c + 1] = q.offset[c] + (p.offset[order[c] + 1] - p.offset[order[c]]);
    q.column.resize(q.offset.back());
    q.value.resize(q.offset.back());
    for (size_t c = 0; c < order.size(); ++c)
        for (size_t e = p.offset[order[c]], f = q.offset[c]; e < p.offset[order[c] + 1]; ++e, ++f) {
            q.column[f] = place[p.column[e]];
            q.value[f] = p.value[e];
        }
    return q;
}

}  // namespace

bool tsnePolish(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t k,
                uint32_t none, const std::vector<uint32_t>& keep, float* y,
                const TsnePolishParams& params) {
    if (!(params.perplexity >= 1))
        throw InputError("t-SNE polish: perplexity " + std::to_string(params.perplexity) +
                         " (at least 1)");
    const size_t m = keep.size();
    if (m < 2 || params.iterations == 0 || k == 0) return true;
    const size_t n = nbr.size() / k;
    const std::vector<uint32_t> order = pictureOrder(keep, y);
    const Affinities p =
        inOrder(jointAffinities(nbr, sq, k, none, keep, n, params.perplexity), order, n);
    // t-SNE's frame: the picture centred, its spread along x startSpread. Cell c of the steps is
    // order[c].
    double cx = 0, cy = 0;
    for (uint32_t i : keep) cx += y[2 * i], cy += y[2 * i + 1];
    cx /= double(m), cy /= double(m);
    double var = 0;
    for (uint32_t i : keep) var += (y[2 * i] - cx) * (y[2 * i] - cx);
    const double sd = std::sqrt(var / double(m));
    const double scale = sd > 0 ? double(params.startSpread) / sd : 1.0;
    std::vector<float> pos(2 * m);
    for (size_t c = 0; c < m; ++c) {
        pos[2 * c] = float((y[2 * order[c]] - cx) * scale);
        pos[2 * c + 1] = float((y[2 * order[c] + 1] - cy) * scale);
    }
    std::vector<uint32_t> cells(m);
    for (size_t c = 0; c < m; ++c) cells[c] = uint32_t(c);
    // The learning rate of interpolation-based t-SNE's defaults; momentum 0.8 throughout (the
    // start is already laid out: no early phase), and the per-coordinate gains of t-SNE.
    const double rate = std::max(200.0, double(m) / 12.0);
    std::vector<double> gain(2 * m, 1.0), update(2 * m, 0.0);
    std::vector<float> next(2 * m);
    GridRepulsion grid(params.spacing);
    RepulsionSums rep;
    for (size_t it = 0; it < params.iterations; ++it) {
        grid.compute(pos.data(), cells, rep);
        const double invZ = rep.z > 0 ? 1.0 / rep.z : 0.0;
#pragma omp parallel for schedule(static)
        for (long long cc = 0; cc < static_cast<long long>(m); ++cc) {
            const size_t c = size_t(cc);
            // In float: the step's error is the grid's, far above float's (most of the polish's
            // time is this loop, eight edges at a time).
            float ax = 0, ay = 0;
            tsneAttraction(pos.data(), p.column.data(), p.value.data(), p.offset[c],
                           p.offset[c + 1], uint32_t(c), ax, ay);
            const double g[2] = {4.0 * (double(ax) - rep.x[c] * invZ),
                                 4.0 * (double(ay) - rep.y[c] * invZ)};
            for (int t = 0; t < 2; ++t) {
                double& gn = gain[2 * c + size_t(t)];
                double& up = update[2 * c + size_t(t)];
                gn = (g[t] > 0) != (up > 0) ? gn + 0.2 : std::max(gn * 0.8, 0.01);
                up = 0.8 * up - rate * gn * g[t];
                next[2 * c + size_t(t)] = float(pos[2 * c + size_t(t)] + up);
            }
        }
        pos.swap(next);
        if (params.onProgress && !params.onProgress(double(it + 1) / double(params.iterations)))
            return false;
    }
    for (size_t c = 0; c < m; ++c) {
        y[2 * order[c]] = float(pos[2 * c] / scale + cx);
        y[2 * order[c] + 1] = float(pos[2 * c + 1] / scale + cy);
    }
    return true;
}

}  // namespace sepal
