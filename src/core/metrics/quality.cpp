#include "core/metrics/quality.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/common/sorted_insert.h"
#include "core/train/sampling.h"

namespace sepal {

namespace {

// The k smallest (distance, index) pairs seen, ascending. Indices arrive in ascending order, so
// on equal distances the lower index stays ahead, as the definition's tie rule asks.
class TopK {
  public:
    explicit TopK(size_t k) : m_k(k), m_dist(k), m_idx(k) {}
    void clear() { m_filled = 0; }
    void push(double dist, uint32_t idx) {
        if (m_filled == m_k && !(dist < m_dist[m_k - 1])) return;
        insertSorted(dist, idx, m_k, m_filled, m_dist.data(), m_idx.data());
    }
    const std::vector<uint32_t>& indices() const { return m_idx; }

  private:
    size_t m_k;
    size_t m_filled = 0;
    std::vector<double> m_dist;
    std::vector<uint32_t> m_idx;
};

// Rank of j among the data-space neighbours (1 = nearest; ties ordered by index). Two
// branch-free counting loops, which the compiler vectorises: this is the metric's hot spot.
size_t dataRank(const double* dh, size_t m, size_t j) {
    const double t = dh[j];
    size_t less = 0, tied = 0;
    for (size_t q = 0; q < m; ++q) less += dh[q] < t ? 1 : 0;
    for (size_t q = 0; q < j; ++q) tied += dh[q] == t ? 1 : 0;
    return 1 + less + tied;
}

double sqdist(const float* a, const float* b, size_t dim) {
    double s = 0.0;
    for (size_t t = 0; t < dim; ++t) {
        const double diff = static_cast<double>(a[t]) - b[t];
        s += diff * diff;
    }
    return s;
}

}  // namespace

std::vector<size_t> qualitySample(size_t n, const QualityParams& params) {
    const size_t m = params.sampleSize == 0 || params.sampleSize >= n ? n : params.sampleSize;
    const size_t k = params.k;
    if (k < 1 || 2 * m < 3 * k + 2)
        throw InputError(
            "quality metrics need 1 <= k < (points - 1) / 1.5: k = " + std::to_string(k) +
            " with " + std::to_string(m) + " points; lower k or score more points");
    std::vector<size_t> sample = samplePoints(n, m, params.seed);
    // Sorted sample order makes results independent of the shuffle used to draw it.
    std::sort(sample.begin(), sample.end());
    return sample;
}

QualityScores scoreEmbedding(const float* high, size_t n, size_t d, const float* low,
                             const QualityParams& params) {
    const std::vector<size_t> sample = qualitySample(n, params);
    const size_t m = sample.size(), k = params.k;

    // The subsample gathered contiguously: the m^2 distance loops stay in cache.
    std::vector<float> hs(m * d), ls(m * 2);
    for (size_t i = 0; i < m; ++i) {
        std::copy(high + sample[i] * d, high + (sample[i] + 1) * d, hs.data() + i * d);
        std::copy(low + sample[i] * 2, low + (sample[i] + 1) * 2, ls.data() + i * 2);
    }

    std::vector<double> penalty(m, 0.0), kept(m, 0.0);
#pragma omp parallel if (m >= 256)
    {
        std::vector<double> dh(m);
        TopK nearHigh(k), nearLow(k);
        std::vector<uint32_t> nh;
#pragma omp for schedule(dynamic, 16)
        for (long long ii = 0; ii < static_cast<long long>(m); ++ii) {
            const size_t i = static_cast<size_t>(ii);
            nearHigh.clear();
            nearLow.clear();
            const float* hi = hs.data() + i * d;
            const float* li = ls.data() + i * 2;
            for (size_t j = 0; j < m; ++j) {
                if (j == i) {
                    dh[j] = std::numeric_limits<double>::infinity();
                    continue;
                }
                dh[j] = sqdist(hi, hs.data() + j * d, d);
                nearHigh.push(dh[j], static_cast<uint32_t>(j));
                nearLow.push(sqdist(li, ls.data() + j * 2, 2), static_cast<uint32_t>(j));
            }
            nh = nearHigh.indices();
            std::sort(nh.begin(), nh.end());
            double p = 0.0;
            size_t both = 0;
            for (uint32_t j : nearLow.indices()) {
                if (std::binary_search(nh.begin(), nh.end(), j)) {
                    ++both;
                    continue;
                }
                p += static_cast<double>(dataRank(dh.data(), m, j) - k);
            }
            penalty[i] = p;
            kept[i] = static_cast<double>(both) / static_cast<double>(k);
        }
    }
    double sumP = 0.0, sumK = 0.0;
    for (size_t i = 0; i < m; ++i) sumP += penalty[i], sumK += kept[i];
    const double md = static_cast<double>(m), kd = static_cast<double>(k);
    QualityScores s;
    s.trustworthiness = 1.0 - 2.0 / (md * kd * (2.0 * md - 3.0 * kd - 1.0)) * sumP;
    s.knnPreservation = sumK / md;
    s.points = m;
    s.keptPerPoint.assign(kept.begin(), kept.end());
    return s;
}

namespace {
class CpuQualityScorer : public QualityScorer {
  public:
    std::string name() const override { return "cpu"; }
    QualityScores score(const float* high, size_t n, size_t d, const float* low,
                        const QualityParams& params) override {
        return scoreEmbedding(high, n, d, low, params);
    }
};
}  // namespace

std::unique_ptr<QualityScorer> makeCpuQualityScorer() {
    return std::make_unique<CpuQualityScorer>();
}

double trustworthiness(const float* high, size_t n, size_t d, const float* low,
                       const QualityParams& params) {
    return scoreEmbedding(high, n, d, low, params).trustworthiness;
}

double knnPreservation(const float* high, size_t n, size_t d, const float* low,
                       const QualityParams& params) {
    return scoreEmbedding(high, n, d, low, params).knnPreservation;
}

double labelAgreement(const float* low, size_t n, const std::vector<int32_t>& labels,
                      const QualityParams& params) {
    if (labels.size() != n)
        throw InputError("label agreement: " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(n) + " points");
    const std::vector<size_t> sample = qualitySample(n, params);
    const size_t m = sample.size(), k = params.k;
    double sum = 0.0;
    size_t scored = 0;
#pragma omp parallel reduction(+ : sum, scored)
    {
        std::vector<std::pair<float, size_t>> near(m);
#pragma omp for schedule(static)
        for (long long ii = 0; ii < static_cast<long long>(m); ++ii) {
            const size_t i = sample[size_t(ii)];
            if (labels[i] < 0) continue;
            size_t c = 0;
            for (size_t jj = 0; jj < m; ++jj) {
                const size_t j = sample[jj];
                if (j == i) continue;
                const float dx = low[2 * i] - low[2 * j], dy = low[2 * i + 1] - low[2 * j + 1];
                near[c++] = {dx * dx + dy * dy, j};
            }
            const size_t kk = std::min(k, c);
            std::partial_sort(near.begin(), near.begin() + long(kk), near.begin() + long(c));
            size_t same = 0;
            for (size_t r = 0; r < kk; ++r) same += labels[near[r].second] == labels[i];
            sum += kk ? double(same) / double(kk) : 0.0;
            ++scored;
        }
    }
    return scored ? sum / double(scored) : 0.0;
}

double labelSilhouette(const float* low, size_t n, const std::vector<int32_t>& labels,
                       const QualityParams& params) {
    if (labels.size() != n)
        throw InputError("label silhouette: " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(n) + " points");
    std::vector<size_t> sample;
    for (size_t i : qualitySample(n, params))
        if (labels[i] >= 0) sample.push_back(i);
    int32_t top = -1;
    for (size_t i : sample) top = std::max(top, labels[i]);
    const size_t groups = size_t(top + 1), m = sample.size();
    std::vector<size_t> size(groups, 0);
    for (size_t i : sample) ++size[size_t(labels[i])];
    double sum = 0.0;
    size_t scored = 0;
#pragma omp parallel reduction(+ : sum, scored)
    {
        std::vector<double> total(groups);
#pragma omp for schedule(static)
        for (long long ii = 0; ii < static_cast<long long>(m); ++ii) {
            const size_t i = sample[size_t(ii)];
            const size_t own = size_t(labels[i]);
            if (size[own] < 2) continue;  // a lone point has no silhouette
            std::fill(total.begin(), total.end(), 0.0);
            for (size_t j : sample) {
                const double dx = double(low[2 * i]) - low[2 * j];
                const double dy = double(low[2 * i + 1]) - low[2 * j + 1];
                total[size_t(labels[j])] += std::sqrt(dx * dx + dy * dy);
            }
            const double a = total[own] / double(size[own] - 1);
            double b = std::numeric_limits<double>::infinity();
            for (size_t c = 0; c < groups; ++c)
                if (c != own && size[c] > 0) b = std::min(b, total[c] / double(size[c]));
            if (!std::isfinite(b)) continue;  // one label only
            const double w = std::max(a, b);
            sum += w > 0 ? (b - a) / w : 0.0;
            ++scored;
        }
    }
    return scored ? sum / double(scored) : 0.0;
}

}  // namespace sepal
