#pragma once
// The cases where EmbedSOM implementations part ways, shared by the CPU and GPU tests: ties at
// the k/k+1 boundary, duplicate landmarks, negative smoothing with adjust 2 on a free layout, and
// pairs whose O(1) form of D cancels; with a plain host oracle of embedsom.md (float32
// difference-form distances, each square rounded before it is added as the reference and every
// backend do, so that all find the same neighbours; double precision after that).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/embedsom/projector.h"
#include "core/model/landmark_model.h"

namespace sepal::test {

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
                acc += e * e;
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

/// One hard case: points, model and parameters.
struct HardCase {
    std::string name;
    size_t n = 0, d = 0;
    std::vector<float> x;
    LandmarkModel model;
    EmbedParams params;
};

/// n points around `clusters` Gaussian blobs in d dimensions and g landmarks drawn from the
/// same blobs (seeded); 2D positions on a free layout (uniform in [0, 10)^2), not a grid.
inline HardCase blobCase(std::string name, size_t n, size_t d, size_t g, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> uniform(0.0f, 10.0f);
    const int clusters = 5;
    std::vector<float> centres(clusters * d);
    for (auto& c : centres) c = 6.0f * normal(rng);
    auto draw = [&](float* row) {
        const size_t c = rng() % clusters;
        for (size_t t = 0; t < d; ++t) row[t] = centres[c * d + t] + 0.7f * normal(rng);
    };
    HardCase hc;
    hc.name = std::move(name);
    hc.n = n;
    hc.d = d;
    hc.x.resize(n * d);
    for (size_t i = 0; i < n; ++i) draw(hc.x.data() + i * d);
    hc.model.resize(g, d);
    for (size_t j = 0; j < g; ++j) {
        draw(hc.model.high.data() + j * d);
        hc.model.low[2 * j] = uniform(rng);
        hc.model.low[2 * j + 1] = uniform(rng);
    }
    hc.model.touch();
    return hc;
}

/// Makes landmarks come in groups of `copies` equal rows (landmark j takes the row of the
/// group's first), each with its own 2D position.
inline void duplicateLandmarks(HardCase& hc, size_t copies) {
    const size_t g = hc.model.count(), d = hc.d;
    for (size_t j = 0; j < g; ++j) {
        const size_t first = j / copies * copies;
        for (size_t t = 0; t < d; ++t) hc.model.high[j * d + t] = hc.model.high[first * d + t];
    }
    hc.model.touch();
}

/// Landmarks in tight groups of `group`, as SOM training leaves them: each a row of the group's
/// first moved by `spread` (a normal draw per column), the group's 2D positions side by side
/// (map neighbours). The cells lie far from every group compared with its spread, so most pairs
/// of a cell's neighbours have a_v c_uv far above kExactRatio (the O(1) form of D loses digits).
inline void crowdLandmarks(HardCase& hc, size_t group, float spread, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const size_t g = hc.model.count(), d = hc.d;
    for (size_t j = 0; j < g; ++j) {
        const size_t first = j / group * group;
        for (size_t t = 0; t < d; ++t)
            hc.model.high[j * d + t] = hc.model.high[first * d + t] + spread * normal(rng);
        hc.model.low[2 * j] = hc.model.low[2 * first] + 0.3f * float(j - first);
        hc.model.low[2 * j + 1] = hc.model.low[2 * first + 1] + 0.2f * float((j - first) % 2);
    }
    hc.model.touch();
}

/// The hard cases (embedsom.md's tolerance applies to each).
inline std::vector<HardCase> hardCases() {
    std::vector<HardCase> cases;
    // Landmarks in equal pairs and an odd k: for every point the pair at places k and k + 1 of
    // its sorted list is tied, and only the order by index says which one takes part.
    for (const int k : {5, 7, 15}) {
        HardCase hc = blobCase("ties_at_k" + std::to_string(k), 3000, 8, 64, 21u + k);
        duplicateLandmarks(hc, 2);
        hc.params.k = k;
        cases.push_back(std::move(hc));
    }
    HardCase triples = blobCase("duplicate_triples", 3000, 16, 96, 31);
    duplicateLandmarks(triples, 3);
    triples.params.k = 10;
    cases.push_back(std::move(triples));
    // Negative smoothing with adjust 2 on a free layout: sharp scores over ill-conditioned
    // systems, where any rounding that differs from the reference's shows.
    for (const uint32_t seed : {41u, 42u, 43u}) {
        HardCase hc = blobCase("smooth-2.5_adjust2_seed" + std::to_string(seed), 3000, 8, 64, seed);
        hc.params.smooth = -2.5f;
        hc.params.adjust = 2.0f;
        cases.push_back(std::move(hc));
    }
    HardCase wide = blobCase("smooth-2.5_adjust2_d16_g256_k16", 3000, 16, 256, 44);
    wide.params.smooth = -2.5f;
    wide.params.adjust = 2.0f;
    wide.params.k = 16;
    cases.push_back(std::move(wide));
    // Trained landmarks crowding in data space (a SOM's map neighbours): groups of 8 a hundredth
    // apart (ratios about 3e3), 1e-4 apart (about 1e6 to 1e8: on both sides of kResidualRatio)
    // and 3e-5 apart (mostly beyond it).
    for (const char* spread : {"1e-2", "1e-4", "3e-5"}) {
        HardCase hc = blobCase(std::string("crowded_landmarks_") + spread, 3000, 16, 128, 51);
        crowdLandmarks(hc, 8, std::stof(spread), 52);
        hc.params.k = 16;
        cases.push_back(std::move(hc));
    }
    return cases;
}

}  // namespace sepal::test
