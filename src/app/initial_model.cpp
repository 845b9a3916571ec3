#include "app/initial_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

namespace sepal::app {

namespace {
float sqDist(const float* a, const float* b, size_t d) {
    float s = 0;
    for (size_t j = 0; j < d; ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

// Leading eigenvector of the covariance (power iteration), orthogonal to `against` when given.
std::vector<double> principal(const std::vector<double>& cov, size_t d, const std::vector<double>* against) {
    std::vector<double> v(d);
    for (size_t j = 0; j < d; ++j) v[j] = 1.0 + 0.1 * double(j);
    for (int it = 0; it < 100; ++it) {
        std::vector<double> w(d, 0.0);
        for (size_t i = 0; i < d; ++i)
            for (size_t j = 0; j < d; ++j) w[i] += cov[i * d + j] * v[j];
        if (against) {
            double dot = 0;
            for (size_t j = 0; j < d; ++j) dot += w[j] * (*against)[j];
            for (size_t j = 0; j < d; ++j) w[j] -= dot * (*against)[j];
        }
        double norm = std::sqrt(std::inner_product(w.begin(), w.end(), w.begin(), 0.0));
        if (norm < 1e-20) break;
        for (size_t j = 0; j < d; ++j) v[j] = w[j] / norm;
    }
    return v;
}
}  // namespace

LandmarkModel makeInitialModel(const Matrix& points, size_t g, size_t graphK, uint64_t seed) {
    LandmarkModel model;
    size_t n = points.rows, d = points.cols;
    if (n == 0 || d == 0) return model;
    g = std::min(g, n);
    model.resize(g, d);
    // Farthest-point sampling over a bounded candidate subsample keeps this fast on big data.
    std::mt19937_64 rng(seed);
    size_t m = std::min<size_t>(n, 20000);
    std::vector<size_t> cand(m);
    if (m == n) {
        std::iota(cand.begin(), cand.end(), 0);
    } else {
        std::uniform_int_distribution<size_t> any(0, n - 1);
        for (auto& c : cand) c = any(rng);
    }
    std::vector<float> best(m, std::numeric_limits<float>::max());
    size_t current = cand[std::uniform_int_distribution<size_t>(0, m - 1)(rng)];
    for (size_t l = 0; l < g; ++l) {
        std::copy(points.row(current), points.row(current) + d, model.highRow(l));
        size_t far = 0;
        for (size_t i = 0; i < m; ++i) {
            best[i] = std::min(best[i], sqDist(points.row(cand[i]), model.highRow(l), d));
            if (best[i] > best[far]) far = i;
        }
        current = cand[far];
    }
    // PCA of the landmarks for their 2D layout.
    std::vector<double> mean(d, 0.0), cov(d * d, 0.0);
    for (size_t l = 0; l < g; ++l)
        for (size_t j = 0; j < d; ++j) mean[j] += model.highRow(l)[j] / double(g);
    for (size_t l = 0; l < g; ++l)
        for (size_t i = 0; i < d; ++i)
            for (size_t j = 0; j < d; ++j)
                cov[i * d + j] +=
                    (model.highRow(l)[i] - mean[i]) * (model.highRow(l)[j] - mean[j]);
    auto pc1 = principal(cov, d, nullptr);
    auto pc2 = principal(cov, d, &pc1);
    float scale = 0;
    for (size_t l = 0; l < g; ++l) {
        double x = 0, y = 0;
        for (size_t j = 0; j < d; ++j) {
            x += (model.highRow(l)[j] - mean[j]) * pc1[j];
            y += (model.highRow(l)[j] - mean[j]) * pc2[j];
        }
        model.low[2 * l] = float(x);
        model.low[2 * l + 1] = float(y);
        scale = std::max({scale, std::abs(float(x)), std::abs(float(y))});
    }
    if (scale > 0)
        for (auto& v : model.low) v /= scale;
    rebuildGraph(model, graphK);
    model.touch();
    return model;
}

void rebuildGraph(LandmarkModel& model, size_t graphK) {
    model.edges.clear();
    size_t g = model.count();
    if (graphK == 0 || g < 2) return;
    std::set<std::pair<uint32_t, uint32_t>> edges;
    std::vector<std::pair<float, uint32_t>> order;
    for (size_t a = 0; a < g; ++a) {
        order.clear();
        for (size_t b = 0; b < g; ++b)
            if (b != a) order.push_back({sqDist(&model.low[2 * a], &model.low[2 * b], 2), uint32_t(b)});
        size_t k = std::min(graphK, order.size());
        std::partial_sort(order.begin(), order.begin() + long(k), order.end());
        for (size_t i = 0; i < k; ++i)
            edges.insert({std::min(uint32_t(a), order[i].second), std::max(uint32_t(a), order[i].second)});
    }
    model.edges.assign(edges.begin(), edges.end());
}

void fitHighFromLow(const LandmarkModel& model, float x, float y, size_t neighbours, float* out) {
    size_t g = model.count(), d = model.dim;
    std::fill(out, out + d, 0.0f);
    if (g == 0) return;
    std::vector<std::pair<float, size_t>> order;
    float p[2] = {x, y};
    for (size_t l = 0; l < g; ++l) order.push_back({sqDist(p, &model.low[2 * l], 2), l});
    size_t k = std::min(neighbours, g);
    std::partial_sort(order.begin(), order.begin() + long(k), order.end());
    double total = 0;
    std::vector<double> acc(d, 0.0);
    for (size_t i = 0; i < k; ++i) {
        double w = 1.0 / (std::sqrt(double(order[i].first)) + 1e-6);
        total += w;
        for (size_t j = 0; j < d; ++j) acc[j] += w * model.highRow(order[i].second)[j];
    }
    for (size_t j = 0; j < d; ++j) out[j] = float(acc[j] / total);
}

}  // namespace sepal::app
