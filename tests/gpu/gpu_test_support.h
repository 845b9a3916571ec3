#pragma once
// Support for the GPU tests: skipping without a device, random data and the fixtures (the host
// oracle and the hard cases are in embedsom_hard_cases.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/embedsom/projector.h"
#include "core/model/landmark_model.h"
#include "cuda/cuda_backend.h"
#include "embedsom_hard_cases.h"
#include "scoped_env.h"

namespace sepal::test {

/// Skips the current test with the device's reason when no CUDA device can run Sepal's kernels.
#define SEPAL_REQUIRE_GPU()                                               \
    do {                                                                  \
        std::string why_;                                                 \
        if (!::sepal::cuda::deviceAvailable(&why_))                       \
            GTEST_SKIP() << "skipped: needs a CUDA GPU (" << why_ << ")"; \
    } while (0)

/// n x d values from N(0, 1), or Gaussian blobs around `clusters` centres when clusters > 0.
inline std::vector<float> randomPoints(size_t n, size_t d, uint32_t seed, int clusters = 0,
                                       float offset = 0.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> centres(size_t(std::max(clusters, 1)) * d);
    for (auto& c : centres) c = clusters > 0 ? 6.0f * normal(rng) : 0.0f;
    std::vector<float> x(n * d);
    for (size_t i = 0; i < n; ++i) {
        const size_t c = clusters > 0 ? rng() % size_t(clusters) : 0;
        for (size_t t = 0; t < d; ++t)
            x[i * d + t] = centres[c * d + t] + normal(rng) * (clusters > 0 ? 0.7f : 1.0f) + offset;
    }
    return x;
}

/// g landmarks sampled from the points (jittered rows); their 2D positions follow the first two
/// data coordinates (scaled and jittered), as a trained map's would, so that the least-squares
/// systems are as well conditioned as in real use.
inline LandmarkModel sampleModel(const std::vector<float>& x, size_t n, size_t d, size_t g,
                                 uint32_t seed) {
    std::mt19937 rng(seed);
    LandmarkModel m;
    m.resize(g, d);
    std::uniform_real_distribution<float> jitter(-0.2f, 0.2f);
    for (size_t j = 0; j < g; ++j) {
        const size_t row = n > 0 ? rng() % n : 0;
        for (size_t t = 0; t < d; ++t)
            m.high[j * d + t] = n > 0 ? x[row * d + t] + 0.01f * jitter(rng) : jitter(rng);
        m.low[2 * j] = 3.0f * m.high[j * d] + jitter(rng);
        m.low[2 * j + 1] = 3.0f * m.high[j * d + (d > 1 ? 1 : 0)] + jitter(rng);
    }
    m.touch();
    return m;
}

/// Raw little-endian float32 file.
inline std::vector<float> readF32(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(0, std::ios::end);
    const size_t bytes = size_t(in.tellg());
    in.seekg(0);
    std::vector<float> v(bytes / 4);
    in.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
    return v;
}

}  // namespace sepal::test
