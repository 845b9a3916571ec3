#pragma once
// Seeded synthetic inputs for EmbedSOM unit tests: normal or clustered points and landmarks.

#include <cstdint>
#include <random>
#include <vector>

#include "core/model/landmark_model.h"

namespace sepal::test {

/// n x d points from N(0, 1), or from `clusters` Gaussian blobs when clusters > 0.
inline std::vector<float> randomPoints(size_t n, size_t d, uint64_t seed, int clusters = 0) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centres(static_cast<size_t>(clusters) * d);
    for (auto& c : centres) c = 6.0f * normal(rng);
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i) {
        const size_t c = clusters > 0 ? rng() % static_cast<uint64_t>(clusters) : 0;
        for (size_t t = 0; t < d; ++t)
            x[i * d + t] = normal(rng) + (clusters > 0 ? centres[c * d + t] : 0.0f);
    }
    return x;
}

/// g landmarks taken from the first g points, placed on a square grid in 2D.
inline LandmarkModel gridModel(const std::vector<float>& points, size_t g, size_t d) {
    LandmarkModel m;
    m.resize(g, d);
    size_t side = 1;
    while (side * side < g) ++side;
    for (size_t j = 0; j < g; ++j) {
        for (size_t t = 0; t < d; ++t) m.high[j * d + t] = points[j * d + t];
        m.low[2 * j] = static_cast<float>(j % side);
        m.low[2 * j + 1] = static_cast<float>(j / side);
    }
    m.touch();
    return m;
}

}  // namespace sepal::test
