#include "core/metrics/quality.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/train/sampling.h"

namespace sepal {

namespace {

// Distances from point `self` to every point of the subsample (itself: +infinity).
void distancesFrom(const float* rows, size_t dim, const std::vector<size_t>& sample, size_t self,
                   std::vector<double>& out) {
    const float* a = rows + sample[self] * dim;
    for (size_t m = 0; m < sample.size(); ++m) {
        const float* b = rows + sample[m] * dim;
        double s = 0.0;
        for (size_t t = 0; t < dim; ++t) {
            const double diff = static_cast<double>(a[t]) - b[t];
            s += diff * diff;
        }
        out[m] = s;
    }
    out[self] = std::numeric_limits<double>::infinity();
}

// The k nearest (by distance, then index), in order.
void nearest(const std::vector<double>& dist, size_t k, std::vector<uint32_t>& order,
             std::vector<uint32_t>& out) {
    auto less = [&](uint32_t x, uint32_t y) {
        return dist[x] < dist[y] || (dist[x] == dist[y] && x < y);
    };
    for (uint32_t m = 0; m < order.size(); ++m) order[m] = m;
    std::partial_sort(order.begin(), order.begin() + k, order.end(), less);
    out.assign(order.begin(), order.begin() + k);
}

}  // namespace

QualityScores scoreEmbedding(const float* high, size_t n, size_t d, const float* low,
                             const QualityParams& params) {
    const size_t m = params.sampleSize == 0 || params.sampleSize >= n ? n : params.sampleSize;
    const size_t k = params.k;
    if (k < 1 || 2 * m < 3 * k + 2)
        throw InputError(
            "quality metrics need 1 <= k < (points - 1) / 1.5: k = " + std::to_string(k) +
            " with " + std::to_string(m) + " points; lower k or score more points");
    std::vector<size_t> sample = samplePoints(n, m, params.seed);
    // Sorted sample order makes results independent of the shuffle used to draw it.
    std::sort(sample.begin(), sample.end());

    std::vector<double> penalty(m, 0.0), kept(m, 0.0);
#pragma omp parallel if (m >= 256)
    {
        std::vector<double> dh(m), dl(m);
        std::vector<uint32_t> order(m), nh, nl;
#pragma omp for schedule(dynamic, 16)
        for (long long ii = 0; ii < static_cast<long long>(m); ++ii) {
            const size_t i = static_cast<size_t>(ii);
            distancesFrom(high, d, sample, i, dh);
            distancesFrom(low, 2, sample, i, dl);
            nearest(dh, k, order, nh);
            nearest(dl, k, order, nl);
            std::sort(nh.begin(), nh.end());
            double p = 0.0;
            size_t both = 0;
            for (uint32_t j : nl) {
                if (std::binary_search(nh.begin(), nh.end(), j)) {
                    ++both;
                    continue;
                }
                // Rank of j among i's data-space neighbours (1 = nearest), ties by index.
                size_t rank = 1;
                for (uint32_t q = 0; q < m; ++q)
                    if (dh[q] < dh[j] || (dh[q] == dh[j] && q < j)) ++rank;
                p += static_cast<double>(rank - k);
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
    return s;
}

double trustworthiness(const float* high, size_t n, size_t d, const float* low,
                       const QualityParams& params) {
    return scoreEmbedding(high, n, d, low, params).trustworthiness;
}

double knnPreservation(const float* high, size_t n, size_t d, const float* low,
                       const QualityParams& params) {
    return scoreEmbedding(high, n, d, low, params).knnPreservation;
}

}  // namespace sepal
