#pragma once
// Support for the GPU tests: skipping without a device, random data, the fixtures, and a plain
// host oracle of embedsom.md (float32 difference-form distances with the GPU's fused
// multiply-add, so that both find the same neighbours; double precision after that).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/embedsom/projector.h"
#include "core/model/landmark_model.h"
#include "cuda/cuda_backend.h"

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

/// The spec's projection of one point set on the host (the test oracle).
inline std::vector<float> hostEmbedSom(const std::vector<float>& x, size_t n, size_t d,
                                       const LandmarkModel& m, const EmbedParams& p) {
    const size_t g = m.count();
    const int k = resolveK(p, g);  // the rules every backend shares (core/embedsom)
    const int topn = k, topnn = size_t(k) < g ? k + 1 : k;
    const double boost = std::max(std::exp(-double(p.smooth) - 1.0), 1e-5);
    std::vector<float> out(n * 2);
    std::vector<std::pair<float, uint32_t>> dist(g);
    for (size_t i = 0; i < n; ++i) {
        const float* xi = x.data() + i * d;
        for (size_t j = 0; j < g; ++j) {
            float acc = 0;
            for (size_t t = 0; t < d; ++t) {
                const float e = xi[t] - m.high[j * d + t];
                acc = std::fma(e, e, acc);
            }
            dist[j] = {acc, uint32_t(j)};
        }
        std::partial_sort(dist.begin(), dist.begin() + topnn, dist.end());
        double sw = 0, sr = 0, sr2 = 0;
        for (int a = 0; a < topnn; ++a) {
            const double r = std::sqrt(double(dist[a].first)), w = 1.0 / (a + 1);
            sw += w, sr += r * w, sr2 += r * r * w;
        }
        const double mean = sr / sw, var = sr2 / sw - mean * mean;
        const double rLast = std::sqrt(double(dist[topnn - 1].first));
        std::vector<double> score(topn);
        for (int a = 0; a < topn; ++a) {
            const double r = std::sqrt(double(dist[a].first));
            score[a] = std::exp((mean - r) * boost / std::sqrt(var)) *
                       (topn < topnn ? 1 - std::exp(r * 10 / rLast - 10) : 1);
        }
        double a00 = 0, a01 = 0, a11 = 0, b0 = 0, b1 = 0;
        for (int a = 0; a < topn; ++a) {
            const uint32_t u = dist[a].second;
            const double gs = score[a] * 1e-5;
            a00 += gs, a11 += gs, b0 += gs * m.low[2 * u], b1 += gs * m.low[2 * u + 1];
            for (int b = a + 1; b < topn; ++b) {
                const uint32_t v = dist[b].second;
                double sqd = 0, dot = 0;
                for (size_t t = 0; t < d; ++t) {
                    const double h = double(m.high[v * d + t]) - m.high[u * d + t];
                    sqd += h * h;
                    dot += (double(xi[t]) - m.high[u * d + t]) * h;
                }
                if (sqd == 0) continue;
                const double dd = dot / sqd;
                const double hx = double(m.low[2 * v]) - m.low[2 * u];
                const double hy = double(m.low[2 * v + 1]) - m.low[2 * u + 1];
                const double hp = hx * hx + hy * hy;
                if (hp < 1e-10) continue;
                const double s = score[a] * score[b] * std::pow(1 + hp, -double(p.adjust)) *
                                 std::exp(-(dd - 0.5) * (dd - 0.5));
                a00 += s / hp * hx * hx, a01 += s / hp * hx * hy, a11 += s / hp * hy * hy;
                const double f = s * (dd + (hx * m.low[2 * u] + hy * m.low[2 * u + 1]) / hp);
                b0 += f * hx, b1 += f * hy;
            }
        }
        const double det = a00 * a11 - a01 * a01;
        out[2 * i] = float((b0 * a11 - b1 * a01) / det);
        out[2 * i + 1] = float((a00 * b1 - a01 * b0) / det);
    }
    return out;
}

/// max over both axes of (max l - min l).
inline double extentOf(const std::vector<float>& low) {
    double e = 0;
    for (int axis = 0; axis < 2; ++axis) {
        double lo = 1e300, hi = -1e300;
        for (size_t i = axis; i < low.size(); i += 2)
            lo = std::min(lo, double(low[i])), hi = std::max(hi, double(low[i]));
        e = std::max(e, hi - lo);
    }
    return e;
}

/// Per-point distances between two n x 2 results, sorted ascending.
inline std::vector<double> pointErrors(const std::vector<float>& a, const std::vector<float>& b) {
    std::vector<double> err(a.size() / 2);
    for (size_t i = 0; i < err.size(); ++i)
        err[i] = std::hypot(double(a[2 * i]) - b[2 * i], double(a[2 * i + 1]) - b[2 * i + 1]);
    std::sort(err.begin(), err.end());
    return err;
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
