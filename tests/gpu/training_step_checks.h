#pragma once
// The GPU training step's results against the host: exact nearest landmarks, sums within float
// tolerance, a whole k-means step checked, and landmarks on jittered rows of the cells
// (test_cuda_training_step.cpp, test_cuda_step_bounds.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/training_step.h"

namespace sepal::test {

/// Nearest landmark of every point with the GPU's arithmetic (difference form, dimension order),
/// ties to the lower index; kSkippedPoint for rows with a non-finite value.
inline void hostNearest(const std::vector<float>& x, size_t n, const std::vector<float>& l,
                        size_t g, size_t d, std::vector<uint32_t>& idx, std::vector<float>& dist) {
    idx.assign(n, cuda::kSkippedPoint);
    dist.assign(n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        bool finite = true;
        for (size_t t = 0; t < d; ++t) finite = finite && std::isfinite(x[i * d + t]);
        if (!finite) continue;
        float best = std::numeric_limits<float>::max();
        for (size_t j = 0; j < g; ++j) {
            float acc = 0;
            for (size_t t = 0; t < d; ++t) {
                const float e = x[i * d + t] - l[j * d + t];
                acc += e * e;
            }
            if (acc < best) best = acc, idx[i] = uint32_t(j);
        }
        dist[i] = best;
    }
}

/// Host sums of the points nearest to each landmark, and of their absolute values (the scale
/// of the float sums' rounding).
struct HostSums {
    std::vector<double> sums, magnitudes;
    std::vector<uint64_t> counts;
    double inertia = 0;
    size_t skipped = 0;
};

inline HostSums hostSums(const std::vector<float>& x, size_t n, size_t d, size_t g,
                         const std::vector<uint32_t>& idx, const std::vector<float>& dist) {
    HostSums h;
    h.sums.assign(g * d, 0.0);
    h.magnitudes.assign(g * d, 0.0);
    h.counts.assign(g, 0);
    for (size_t i = 0; i < n; ++i) {
        if (idx[i] == cuda::kSkippedPoint) {
            ++h.skipped;
            continue;
        }
        ++h.counts[idx[i]];
        h.inertia += dist[i];
        for (size_t t = 0; t < d; ++t) {
            h.sums[idx[i] * d + t] += x[i * d + t];
            h.magnitudes[idx[i] * d + t] += std::abs(x[i * d + t]);
        }
    }
    return h;
}

/// Float sums over chunks, added in double: their error is bounded by a small multiple of the
/// sum of magnitudes (tight for the few points of a test, and scaled to how many there are).
inline double sumTolerance(double magnitude) {
    return 1e-5 * magnitude + 1e-6;
}

/// Checks a k-means step's assignment, sums, counts, inertia and new landmarks against the host;
/// the step's result goes to `result` when given.
inline void expectKmeansStep(cuda::TrainingStep& gpu, const std::vector<float>& x, size_t n,
                             size_t d, const std::vector<float>& l, size_t g,
                             cuda::StepResult* result = nullptr) {
    const cuda::StepResult r = gpu.stepKmeans(l.data(), g);
    if (result) *result = r;
    SCOPED_TRACE("n " + std::to_string(n) + ", d " + std::to_string(d) + ", g " +
                 std::to_string(g) + ", k-NN " + gpu.lastKernel() + ", sums " + gpu.lastSumMode());
    std::vector<uint32_t> idx;
    std::vector<float> dist;
    hostNearest(x, n, l, g, d, idx, dist);
    const HostSums h = hostSums(x, n, d, g, idx, dist);
    EXPECT_EQ(gpu.assignment(), idx);
    const cuda::NearestSums got = gpu.nearestSums();
    EXPECT_EQ(got.counts, h.counts);
    ASSERT_EQ(got.sums.size(), g * d);
    ASSERT_EQ(r.landmarks.size(), g * d);
    ASSERT_EQ(r.weights.size(), g);
    for (size_t j = 0; j < g; ++j) {
        EXPECT_EQ(r.weights[j], double(h.counts[j])) << "landmark " << j;
        for (size_t t = 0; t < d; ++t) {
            const size_t e = j * d + t;
            EXPECT_NEAR(got.sums[e], h.sums[e], sumTolerance(h.magnitudes[e])) << "landmark " << j;
            if (h.counts[j] == 0) {
                EXPECT_EQ(r.landmarks[e], l[e]) << "empty cluster " << j << " keeps its place";
            } else {
                const double c = double(h.counts[j]);
                EXPECT_NEAR(r.landmarks[e], h.sums[e] / c, sumTolerance(h.magnitudes[e]) / c + 1e-6)
                    << "landmark " << j;
            }
        }
    }
    EXPECT_NEAR(r.inertia, h.inertia, 1e-6 * h.inertia + 1e-9);
    EXPECT_EQ(r.skipped, h.skipped);
}

/// A side x side map's square neighbourhood (the batch SOM's in the app): weight 1 for winner c
/// of landmark j where their Chebyshev distance on the map is within `radius`, else 0.
inline std::vector<float> squareNeighbourhood(size_t side, float radius) {
    const size_t g = side * side;
    std::vector<float> w(g * g);
    for (size_t j = 0; j < g; ++j)
        for (size_t c = 0; c < g; ++c) {
            const float dx = std::fabs(float(j % side) - float(c % side));
            const float dy = std::fabs(float(j / side) - float(c / side));
            w[j * g + c] = std::max(dx, dy) <= radius ? 1.0f : 0.0f;
        }
    return w;
}

/// Landmarks on rows of x (a fixed spread), each moved by a small jitter.
inline std::vector<float> landmarksOnRows(const std::vector<float>& x, size_t n, size_t d, size_t g,
                                          uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-0.05f, 0.05f);
    std::vector<float> l(g * d);
    for (size_t j = 0; j < g; ++j) {
        const size_t row = (j * 7919 + 13) % n;
        for (size_t t = 0; t < d; ++t) l[j * d + t] = x[row * d + t] + jitter(rng);
    }
    return l;
}

}  // namespace sepal::test
