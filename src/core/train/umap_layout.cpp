#include "core/train/umap_layout.h"

#include <algorithm>
#include <cmath>

#include "core/model/landmark_edit.h"
#include "core/train/landmark_graph.h"
#include "core/train/supervision.h"

namespace sepal {

CurveParams fitCurve(double minDist, double spread) {
    constexpr int kSamples = 300;
    std::vector<double> xs(kSamples), ys(kSamples);
    for (int i = 0; i < kSamples; ++i) {
        xs[i] = 3.0 * spread * (i + 1) / kSamples;
        ys[i] = xs[i] < minDist ? 1.0 : std::exp(-(xs[i] - minDist) / spread);
    }
    auto residual = [&](double a, double b) {
        double r = 0.0;
        for (int i = 0; i < kSamples; ++i) {
            const double e = 1.0 / (1.0 + a * std::pow(xs[i], 2.0 * b)) - ys[i];
            r += e * e;
        }
        return r;
    };
    // Levenberg-Marquardt on (a, b) with analytic derivatives.
    double a = 1.0, b = 1.0, lambda = 1e-3, cur = residual(a, b);
    for (int it = 0; it < 500; ++it) {
        double jtj[3] = {0, 0, 0}, jtr[2] = {0, 0};
        for (int i = 0; i < kSamples; ++i) {
            const double p = std::pow(xs[i], 2.0 * b);
            const double f = 1.0 / (1.0 + a * p);
            const double e = f - ys[i];
            const double da = -f * f * p;
            const double db = -f * f * a * p * 2.0 * std::log(xs[i]);
            jtj[0] += da * da, jtj[1] += da * db, jtj[2] += db * db;
            jtr[0] += da * e, jtr[1] += db * e;
        }
        const double m00 = jtj[0] * (1 + lambda), m11 = jtj[2] * (1 + lambda), m01 = jtj[1];
        const double det = m00 * m11 - m01 * m01;
        if (det == 0.0) break;
        const double sa = -(m11 * jtr[0] - m01 * jtr[1]) / det;
        const double sb = -(m00 * jtr[1] - m01 * jtr[0]) / det;
        const double next = residual(a + sa, b + sb);
        if (next < cur && a + sa > 0 && b + sb > 0) {
            a += sa, b += sb;
            const bool done = cur - next < 1e-14;
            cur = next;
            lambda *= 0.3;
            if (done) break;
        } else {
            lambda *= 10.0;
            if (lambda > 1e12) break;
        }
    }
    return {a, b};
}

double UmapLayoutTrainer::progress() const {
    return m_params.epochs == 0
               ? 0.0
               : std::min(1.0, static_cast<double>(m_epoch) / static_cast<double>(m_params.epochs));
}

void membershipStrengths(const double* dist, size_t m, double target, float* w) {
    double rho = 0.0;
    for (size_t r = 0; r < m; ++r)
        if (dist[r] > 0.0) {
            rho = dist[r];
            break;
        }
    double lo = 0.0, hi = 1e300, sigma = 1.0;
    for (int it = 0; it < 64; ++it) {
        double sum = 0.0, slope = 0.0;
        for (size_t r = 0; r < m; ++r) {
            const double x = std::max(0.0, dist[r] - rho), e = std::exp(-x / sigma);
            sum += e;
            slope += e * x;
        }
        if (std::abs(sum - target) < 1e-5) break;
        // The sum grows with sigma: the bracket [lo, hi] holds the answer.
        if (sum > target)
            hi = sigma;
        else
            lo = sigma;
        // Newton's step (d sum / d sigma = sum of e x / sigma^2) while it stays inside the
        // bracket, else halving it: a handful of rounds where halving alone took about twenty.
        // Before the bracket closes a step grows sigma at most twofold: far beyond the nearest
        // neighbour the slope vanishes and Newton's step would leap to 1e20 and more, from where
        // only halving comes back.
        slope /= sigma * sigma;
        const double newton = slope > 0.0 ? sigma - (sum - target) / slope : -1.0;
        if (hi >= 1e300)
            sigma = newton > sigma ? std::min(newton, 2.0 * sigma) : 2.0 * sigma;
        else
            sigma = newton > lo && newton < hi ? newton : 0.5 * (lo + hi);
    }
    for (size_t r = 0; r < m; ++r)
        w[r] = static_cast<float>(std::exp(-std::max(0.0, dist[r] - rho) / sigma));
}

bool UmapLayoutTrainer::supervise(std::vector<int32_t> landmarkLabels, float strength) {
    m_labels = std::move(landmarkLabels);
    m_strength = strength;
    m_g = 0;  // built again with the labels
    return true;
}

void UmapLayoutTrainer::prepare(const LandmarkModel& model) {
    const size_t g = model.count();
    m_g = g;
    m_curve = fitCurve(m_params.minDist, m_params.spread);
    std::vector<float> sq;
    const std::vector<uint32_t> nn = landmarkNeighbours(model, m_params.k, &sq);
    const size_t k = nn.size() / g;
    // Per landmark: rho (nearest distance) and sigma such that the weights sum to log2(k).
    std::vector<float> dense(g * g, 0.0f);
    const double target = std::log2(static_cast<double>(std::max<size_t>(k, 2)));
    for (size_t i = 0; i < g; ++i) {
        std::vector<double> dist(k);
        for (size_t r = 0; r < k; ++r) dist[r] = std::sqrt(static_cast<double>(sq[i * k + r]));
        std::vector<float> w(k);
        membershipStrengths(dist.data(), k, target, w.data());
        for (size_t r = 0; r < k; ++r) dense[i * g + nn[i * k + r]] = w[r];
    }
    // Fuzzy union: w = a + b - a b; supervised, pairs of different labels weaken.
    const std::vector<float> f = m_labels.size() == g && m_strength > 0.0f
                                     ? supervisionFactors(m_labels, m_strength)
                                     : std::vector<float>();
    m_dense.assign(g * g, 0.0f);
    m_head.clear(), m_tail.clear(), m_weight.clear();
    float wmax = 0.0f;
    for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j) {
            const float a = dense[i * g + j], b = dense[j * g + i];
            const float w = (a + b - a * b) * (f.empty() ? 1.0f : f[i * g + j]);
            m_dense[i * g + j] = w;
            if (w <= 0.0f || i == j) continue;
            m_head.push_back(static_cast<uint32_t>(i));
            m_tail.push_back(static_cast<uint32_t>(j));
            m_weight.push_back(w);
            wmax = std::max(wmax, w);
        }
    const size_t e = m_weight.size();
    m_perSample.assign(e, -1.0f);
    for (size_t s = 0; s < e; ++s)
        if (m_weight[s] >= wmax / static_cast<float>(std::max<size_t>(m_params.epochs, 1)))
            m_perSample[s] = wmax / m_weight[s];
    m_nextSample = m_perSample;
    m_perNegative.resize(e);
    for (size_t s = 0; s < e; ++s)
        m_perNegative[s] =
            m_perSample[s] / static_cast<float>(std::max<size_t>(m_params.negativeSamples, 1));
    m_nextNegative = m_perNegative;
    m_y = m_frame.start(model, m_params.startStd, m_params.seed);
}

bool UmapLayoutTrainer::step(LandmarkModel& model, const TrainingData&) {
    if (m_epoch >= m_params.epochs) return false;
    const size_t g = model.count();
    if (g < 3) return false;
    if (m_g != g || m_y.empty()) prepare(model);
    const float a = static_cast<float>(m_curve.a), b = static_cast<float>(m_curve.b);
    auto clip = [](float v) { return std::clamp(v, -4.0f, 4.0f); };
    for (size_t s = 0; s < m_params.epochsPerStep && m_epoch < m_params.epochs; ++s) {
        m_frame.pinLocked(model, m_y);
        const float n = static_cast<float>(m_epoch);
        const float alpha =
            m_params.learningRate * (1.0f - n / static_cast<float>(m_params.epochs));
        for (size_t e = 0; e < m_head.size(); ++e) {
            if (m_perSample[e] <= 0.0f || m_nextSample[e] > n) continue;
            const uint32_t i = m_head[e], j = m_tail[e];
            const bool moveI = !lowLocked(model, i), moveJ = !lowLocked(model, j);
            float* yi = m_y.data() + 2 * i;
            float* yj = m_y.data() + 2 * j;
            float dx = yi[0] - yj[0], dy = yi[1] - yj[1];
            float d2 = dx * dx + dy * dy;
            if (d2 > 0.0f) {
                const float coef =
                    -2.0f * a * b * std::pow(d2, b - 1.0f) / (a * std::pow(d2, b) + 1.0f);
                const float gx = clip(coef * dx) * alpha, gy = clip(coef * dy) * alpha;
                if (moveI) yi[0] += gx, yi[1] += gy;
                if (moveJ) yj[0] -= gx, yj[1] -= gy;
            }
            m_nextSample[e] += m_perSample[e];
            const int negatives = static_cast<int>((n - m_nextNegative[e]) / m_perNegative[e]);
            for (int q = 0; q < negatives; ++q) {
                const size_t k = m_rng.below(g);
                if (k == i) continue;
                const float* yk = m_y.data() + 2 * k;
                dx = yi[0] - yk[0], dy = yi[1] - yk[1];
                d2 = dx * dx + dy * dy;
                float gx = 4.0f, gy = 4.0f;
                if (d2 > 0.0f) {
                    const float coef = 2.0f * b / ((0.001f + d2) * (a * std::pow(d2, b) + 1.0f));
                    gx = clip(coef * dx), gy = clip(coef * dy);
                }
                if (moveI) yi[0] += gx * alpha, yi[1] += gy * alpha;
            }
            m_nextNegative[e] += static_cast<float>(negatives) * m_perNegative[e];
        }
        ++m_epoch;
    }
    m_frame.writeBack(model, m_y);
    return m_epoch < m_params.epochs;
}

double UmapLayoutTrainer::crossEntropy() const {
    const size_t g = m_g;
    if (g == 0 || m_y.size() != 2 * g) return 0.0;
    double ce = 0.0;
    for (size_t i = 0; i < g; ++i)
        for (size_t j = i + 1; j < g; ++j) {
            const double dx = m_y[2 * i] - m_y[2 * j], dy = m_y[2 * i + 1] - m_y[2 * j + 1];
            const double d2 = dx * dx + dy * dy;
            const double q =
                std::clamp(1.0 / (1.0 + m_curve.a * std::pow(d2, m_curve.b)), 1e-6, 1.0 - 1e-6);
            const double w = m_dense[i * g + j];
            if (w > 0.0) ce -= w * std::log(q);
            if (w < 1.0) ce -= (1.0 - w) * std::log(1.0 - q);
        }
    return ce;
}

}  // namespace sepal
