#include "core/embedsom/fallback.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace sepal {

void neighbourMean(const uint32_t* idx, const float* weight, int topn, const float* low, float* y) {
    double sw = 0.0, sx = 0.0, sy = 0.0;
    if (weight)
        for (int i = 0; i < topn; ++i) {
            sw += weight[i];
            sx += weight[i] * low[2 * idx[i]];
            sy += weight[i] * low[2 * idx[i] + 1];
        }
    if (!(sw > 0.0) || !std::isfinite(sx) || !std::isfinite(sy)) {
        sw = sx = sy = 0.0;
        for (int i = 0; i < topn; ++i) {
            sw += 1.0;
            sx += low[2 * idx[i]];
            sy += low[2 * idx[i] + 1];
        }
    }
    y[0] = static_cast<float>(sx / sw);
    y[1] = static_cast<float>(sy / sw);
}

void placeNonFinitePoint(const float* x, const LandmarkModel& model, const ScoreSetup& setup,
                         float* y) {
    const size_t g = model.count(), d = model.dim;
    bool anyFinite = false;
    for (size_t t = 0; t < d; ++t) anyFinite |= std::isfinite(x[t]);
    if (!anyFinite) {
        std::vector<uint32_t> all(g);
        for (size_t j = 0; j < g; ++j) all[j] = static_cast<uint32_t>(j);
        neighbourMean(all.data(), nullptr, static_cast<int>(g), model.low.data(), y);
        return;
    }
    std::vector<std::pair<float, uint32_t>> dist(g);
    for (size_t j = 0; j < g; ++j) {
        const float* l = model.highRow(j);
        float a = 0.0f;
        for (size_t t = 0; t < d; ++t) {
            if (!std::isfinite(x[t])) continue;
            const float diff = x[t] - l[t];
            a += diff * diff;
        }
        dist[j] = {a, static_cast<uint32_t>(j)};
    }
    std::partial_sort(dist.begin(), dist.begin() + setup.topnn, dist.end());
    std::vector<float> a(setup.topnn), score(setup.topn);
    std::vector<uint32_t> idx(setup.topnn);
    for (int i = 0; i < setup.topnn; ++i) a[i] = dist[i].first, idx[i] = dist[i].second;
    const bool ok = computeScores(a.data(), setup, score.data());
    neighbourMean(idx.data(), ok ? score.data() : nullptr, setup.topn, model.low.data(), y);
}

}  // namespace sepal
