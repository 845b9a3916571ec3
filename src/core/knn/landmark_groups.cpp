#include "core/knn/landmark_groups.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sepal {

namespace {

/// The direction of the largest spread of the landmarks `which` (count of them): a few rounds of
/// power iteration on their covariance, from a fixed start, so the grouping is reproducible.
void principalAxis(const float* landmarks, size_t d, const uint32_t* which, size_t count,
                   std::vector<double>& axis) {
    std::vector<double> mean(d, 0.0), cov(d * d, 0.0), next(d);
    for (size_t i = 0; i < count; ++i)
        for (size_t t = 0; t < d; ++t) mean[t] += landmarks[size_t(which[i]) * d + t];
    for (double& m : mean) m /= double(count);
    for (size_t i = 0; i < count; ++i) {
        const float* c = landmarks + size_t(which[i]) * d;
        for (size_t s = 0; s < d; ++s)
            for (size_t t = 0; t < d; ++t) cov[s * d + t] += (c[s] - mean[s]) * (c[t] - mean[t]);
    }
    axis.assign(d, 1.0);
    for (int round = 0; round < 30; ++round) {
        double norm = 0.0;
        for (size_t s = 0; s < d; ++s) {
            double v = 0.0;
            for (size_t t = 0; t < d; ++t) v += cov[s * d + t] * axis[t];
            next[s] = v;
            norm += v * v;
        }
        norm = std::sqrt(norm);
        if (!(norm > 0.0) || !std::isfinite(norm)) return;  // no spread (or NaN): keep the last
        for (size_t s = 0; s < d; ++s) axis[s] = next[s] / norm;
    }
}

}  // namespace

std::vector<uint32_t> groupLandmarks(const float* landmarks, size_t g, size_t d, size_t block) {
    std::vector<uint32_t> order(g);
    for (size_t j = 0; j < g; ++j) order[j] = static_cast<uint32_t>(j);
    std::vector<double> key(g), axis(d);
    const auto split = [&](auto&& self, size_t begin, size_t end) -> void {
        if (end - begin <= block) return;
        principalAxis(landmarks, d, order.data() + begin, end - begin, axis);
        for (size_t i = begin; i < end; ++i) {
            const float* c = landmarks + size_t(order[i]) * d;
            double k = 0.0;
            for (size_t t = 0; t < d; ++t) k += double(c[t]) * axis[t];
            key[order[i]] = std::isnan(k) ? std::numeric_limits<double>::infinity() : k;
        }
        const size_t left = std::max(block, (end - begin) / 2 / block * block);
        std::nth_element(order.begin() + long(begin), order.begin() + long(begin + left),
                         order.begin() + long(end), [&](uint32_t a, uint32_t b) {
                             return key[a] < key[b] || (key[a] == key[b] && a < b);
                         });
        self(self, begin, begin + left);
        self(self, begin + left, end);
    };
    split(split, 0, g);
    return order;
}

}  // namespace sepal
