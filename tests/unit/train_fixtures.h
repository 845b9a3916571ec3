#pragma once
// Small synthetic data for trainer and metric tests: Gaussian blobs with a fixed seed.

#include <cstdint>
#include <random>
#include <vector>

#include "core/train/trainer.h"

namespace sepal::test {

/// n points in d dimensions around `clusters` random centres (spread 5) with unit noise.
inline std::vector<float> blobs(size_t n, size_t d, size_t clusters, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centres(clusters * d);
    for (float& c : centres) c = 5.0f * normal(rng);
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i)
        for (size_t t = 0; t < d; ++t) x[i * d + t] = centres[(i % clusters) * d + t] + normal(rng);
    return x;
}

/// The view of a point vector as training data.
inline TrainingData view(const std::vector<float>& x, size_t d) {
    return TrainingData{x.data(), x.size() / d, d};
}

}  // namespace sepal::test
