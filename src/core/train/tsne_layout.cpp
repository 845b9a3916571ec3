#include "core/train/tsne_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/model/landmark_edit.h"
#include "core/train/sampling.h"
#include "core/train/supervision.h"
#include "core/train/tsne_sums.h"

namespace sepal {

namespace {
/// The largest beta calibrateRow tries: the distances are scaled to a mean of about 1, and the
/// smallest difference of two of them then far exceeds 1e-100, so exp(-beta x) underflows for
/// every x but the ties'.
constexpr double kMostBeta = 1e100;
}  // namespace

void calibrateRow(const float* sqdist, size_t m, float perplexity, float* p) {
    if (m == 0) return;
    const double target = std::log(static_cast<double>(perplexity));
    double lo = 0.0, hi = std::numeric_limits<double>::infinity(), beta = 1.0;
    // Distances relative to the smallest keep exp() in range for any data scale.
    double dmin = std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < m; ++j) dmin = std::min(dmin, static_cast<double>(sqdist[j]));
    double scale = 0.0;
    for (size_t j = 0; j < m; ++j) scale += sqdist[j] - dmin;
    scale = scale > 0.0 ? scale / static_cast<double>(m) : 1.0;
    std::vector<double> w(m);
    for (int it = 0; it < 200; ++it) {
        double sum = 0.0, dot = 0.0, squares = 0.0;
        for (size_t j = 0; j < m; ++j) {
            const double x = (sqdist[j] - dmin) / scale;
            w[j] = std::exp(-beta * x);
            sum += w[j];
            dot += w[j] * x;
            squares += w[j] * x * x;
        }
        const double mean = dot / sum;
        const double entropy = std::log(sum) + beta * mean;
        if (std::abs(entropy - target) < 1e-5) break;
        // The entropy falls as beta grows: the bracket [lo, hi] holds the answer.
        if (entropy > target)
            lo = beta;
        else
            hi = beta;
        // Newton's step (dH/dbeta = -beta Var(x)) while it stays inside the bracket, else
        // halving it: a handful of rounds where halving alone took about twenty.
        const double slope = -beta * (squares / sum - mean * mean);
        const double newton = slope < 0.0 ? beta - (entropy - target) / slope : -1.0;
        if (newton > lo && newton < hi)
            beta = newton;
        else
            beta = std::isinf(hi) ? beta * 2.0 : 0.5 * (lo + hi);
        // More ties at the smallest distance than the perplexity (landmarks on a coarse
        // instrument's floor): no beta brings the entropy down to the target. Past kMostBeta
        // every other weight has underflowed to 0, and going on, Newton's step and the doubling
        // reach infinity, where 0 times infinity is NaN. The row stays as it is there: the ties
        // share it.
        if (beta > kMostBeta) {
            if (lo >= kMostBeta) break;
            beta = kMostBeta;
        }
    }
    double sum = 0.0;
    for (size_t j = 0; j < m; ++j) sum += w[j];
    for (size_t j = 0; j < m; ++j) p[j] = static_cast<float>(w[j] / sum);
}

double TsneLayoutTrainer::progress() const {
    return m_params.iterations == 0 ? 0.0
                                    : std::min(1.0, static_cast<double>(m_iter) /
                                                        static_cast<double>(m_params.iterations));
}

void TsneLayoutTrainer::prepare(const LandmarkModel& model) {
    const size_t g = model.count(), d = model.dim;
    m_g = g;
    const float perp = std::max(1.0f, std::min(m_params.perplexity, (g - 1) / 3.0f));
    std::vector<float> cond(g * g, 0.0f);
#pragma omp parallel if (g >= kParallelLandmarks)
    {
        std::vector<float> dist(g - 1), row(g - 1);
#pragma omp for schedule(static)
        for (long long ii = 0; ii < static_cast<long long>(g); ++ii) {
            const size_t i = static_cast<size_t>(ii);
            size_t m = 0;
            for (size_t j = 0; j < g; ++j) {
                if (j == i) continue;
                float s = 0.0f;
                for (size_t t = 0; t < d; ++t) {
                    const float diff = model.highRow(i)[t] - model.highRow(j)[t];
                    s += diff * diff;
                }
                dist[m++] = s;
            }
            calibrateRow(dist.data(), g - 1, perp, row.data());
            m = 0;
            for (size_t j = 0; j < g; ++j)
                if (j != i) cond[i * g + j] = row[m++];
        }
    }
    m_p.assign(g * g, 0.0f);
    const float norm = 1.0f / (2.0f * static_cast<float>(g));
    for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j)
            m_p[i * g + j] = std::max((cond[i * g + j] + cond[j * g + i]) * norm, 1e-12f);
    if (m_labels.size() == g && m_strength > 0.0f) {
        // Supervised: pairs of different labels weaken, then P sums to 1 again.
        const std::vector<float> f = supervisionFactors(m_labels, m_strength);
        double sum = 0.0;
        for (size_t i = 0; i < g * g; ++i) sum += m_p[i] *= f[i];
        for (float& v : m_p) v = std::max(float(v / sum), 1e-12f);
    }
    m_y = m_frame.start(model, m_params.startStd, m_params.seed);
    m_update.assign(2 * g, 0.0f);
    m_gains.assign(2 * g, 1.0f);
    m_grad.assign(2 * g, 0.0f);
    m_rep.assign(2 * g, 0.0f);
    m_rowZ.assign(g, 0.0f);
    m_xs.assign(g, 0.0f);
    m_ys.assign(g, 0.0f);
}

bool TsneLayoutTrainer::supervise(std::vector<int32_t> landmarkLabels, float strength) {
    m_labels = std::move(landmarkLabels);
    m_strength = strength;
    m_p.clear();  // built again with the labels
    return true;
}

bool TsneLayoutTrainer::step(LandmarkModel& model, const TrainingData&) {
    if (m_iter >= m_params.iterations) return false;
    const size_t g = model.count();
    if (g < 3) return false;
    if (m_g != g || m_p.empty()) prepare(model);
    const float lr = m_params.learningRate > 0.0f
                         ? m_params.learningRate
                         : std::max(static_cast<float>(g) / m_params.exaggeration / 4.0f, 50.0f);
    for (size_t s = 0; s < m_params.iterationsPerStep && m_iter < m_params.iterations; ++s) {
        m_frame.pinLocked(model, m_y);
        const bool early = m_iter < m_params.exaggerationIters;
        const float ex = early ? m_params.exaggeration : 1.0f;
        const float momentum = early ? 0.5f : 0.8f;
        // The positions as two columns, which the sums read eight at a time.
        for (size_t i = 0; i < g; ++i) m_xs[i] = m_y[2 * i], m_ys[i] = m_y[2 * i + 1];
            // One pass per landmark: the attraction sum_j p_ij w_ij (y_i - y_j), the unnormalised
            // repulsion sum_j w_ij^2 (y_i - y_j) and the row sum of w; Z is only a scalar, summed
            // in a fixed order afterwards. j = i adds w = 1 to the row sum and nothing else.
#pragma omp parallel for schedule(static) if (g >= kParallelLandmarks)
        for (long long ii = 0; ii < static_cast<long long>(g); ++ii) {
            const size_t i = static_cast<size_t>(ii);
            const TsneRowSums r =
                tsneRowSums(m_xs.data(), m_ys.data(), m_p.data() + i * g, g, m_xs[i], m_ys[i]);
            m_grad[2 * i] = r.attractX;
            m_grad[2 * i + 1] = r.attractY;
            m_rep[2 * i] = r.repelX;
            m_rep[2 * i + 1] = r.repelY;
            m_rowZ[i] = r.w - 1.0f;
        }
        double zsum = 0.0;
        for (float z : m_rowZ) zsum += z;
        const float invZ = static_cast<float>(1.0 / zsum);
        for (size_t c = 0; c < 2 * g; ++c) m_grad[c] = 4.0f * (ex * m_grad[c] - invZ * m_rep[c]);
        for (size_t c = 0; c < 2 * g; ++c) {
            if (lowLocked(model, c / 2)) {
                m_update[c] = 0.0f;
                continue;
            }
            const bool sameSign = (m_grad[c] > 0.0f) == (m_update[c] > 0.0f);
            m_gains[c] = std::max(sameSign ? m_gains[c] * 0.8f : m_gains[c] + 0.2f, 0.01f);
            m_update[c] = momentum * m_update[c] - lr * m_gains[c] * m_grad[c];
            m_y[c] += m_update[c];
        }
        ++m_iter;
    }
    m_frame.writeBack(model, m_y);
    return m_iter < m_params.iterations;
}

double TsneLayoutTrainer::divergence() const {
    const size_t g = m_g;
    if (g == 0 || m_y.size() != 2 * g) return 0.0;
    double z = 0.0;
    for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j) {
            if (i == j) continue;
            const double dx = m_y[2 * i] - m_y[2 * j], dy = m_y[2 * i + 1] - m_y[2 * j + 1];
            z += 1.0 / (1.0 + dx * dx + dy * dy);
        }
    double kl = 0.0;
    for (size_t i = 0; i < g; ++i)
        for (size_t j = 0; j < g; ++j) {
            if (i == j) continue;
            const double dx = m_y[2 * i] - m_y[2 * j], dy = m_y[2 * i + 1] - m_y[2 * j + 1];
            const double q = 1.0 / (1.0 + dx * dx + dy * dy) / z;
            const double p = m_p[i * g + j];
            kl += p * std::log(p / std::max(q, 1e-300));
        }
    return kl;
}

}  // namespace sepal
