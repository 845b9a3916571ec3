#pragma once
// Seeded inputs of the projection and k-NN benchmarks (benchmarks.md): N(0, 1) points, or
// Gaussian blobs with landmarks sampled from the data; landmarks on a square 2D grid.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/model/landmark_model.h"

namespace sepal::bench {

/// n x d points: "normal" draws N(0, 1); "clustered" draws around 32 centres (N(0, 4^2)).
inline std::vector<float> benchPoints(const std::string& kind, size_t n, size_t d, uint64_t seed) {
    if (kind != "normal" && kind != "clustered")
        throw InputError("--data " + kind + ": use normal or clustered");
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const size_t clusters = kind == "clustered" ? 32 : 0;
    std::vector<float> centres(clusters * d);
    for (float& c : centres) c = 4.0f * normal(rng);
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i) {
        const size_t c = clusters ? static_cast<size_t>(rng() % clusters) : 0;
        for (size_t t = 0; t < d; ++t)
            x[i * d + t] = normal(rng) + (clusters ? centres[c * d + t] : 0.0f);
    }
    return x;
}

/// g landmarks: sampled from the points (clustered) or drawn from N(0, 1) like them (normal),
/// with 2D positions on a square grid.
inline LandmarkModel benchModel(const std::string& kind, const std::vector<float>& points, size_t g,
                                size_t d, uint64_t seed) {
    LandmarkModel m;
    m.resize(g, d);
    std::mt19937_64 rng(seed ^ 0x5eed);
    const size_t n = points.size() / d;
    const std::vector<float> fresh =
        kind == "normal" ? benchPoints("normal", g, d, seed + 1) : std::vector<float>{};
    size_t side = 1;
    while (side * side < g) ++side;
    for (size_t j = 0; j < g; ++j) {
        const float* src =
            kind == "normal" ? fresh.data() + j * d : points.data() + (rng() % n) * d;
        std::copy(src, src + d, m.highRow(j));
        m.low[2 * j] = static_cast<float>(j % side);
        m.low[2 * j + 1] = static_cast<float>(j / side);
    }
    m.touch();
    return m;
}

/// Median and spread (min, max) of timings in seconds.
struct Timings {
    double median = 0.0, min = 0.0, max = 0.0;
};

/// Runs `f` once to warm up, then `repeats` times; returns the median and the spread. With
/// repeats <= 0, one run without a warm-up (for runs too long to do twice).
template <typename F>
Timings timeRepeated(int repeats, F&& f) {
    if (repeats <= 0) {
        const auto a = std::chrono::steady_clock::now();
        f();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
        return {s, s, s};
    }
    f();
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
        const auto a = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return {t[t.size() / 2], t.front(), t.back()};
}

}  // namespace sepal::bench
