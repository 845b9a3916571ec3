#include "core/transform/quantile_map.h"

#include <algorithm>
#include <cmath>

namespace sepal {

std::vector<double> quantilesOfSorted(const std::vector<double>& sorted,
                                      const std::vector<double>& levels) {
    std::vector<double> out;
    if (sorted.empty()) return out;
    out.reserve(levels.size());
    const double last = double(sorted.size() - 1);
    for (double p : levels) {
        const double h = std::clamp(p, 0.0, 1.0) * last;
        const size_t lo = size_t(std::floor(h));
        const size_t hi = std::min(lo + 1, sorted.size() - 1);
        out.push_back(sorted[lo] + (h - double(lo)) * (sorted[hi] - sorted[lo]));
    }
    return out;
}

std::vector<double> evenLevels(size_t count) {
    count = std::max<size_t>(count, 2);
    std::vector<double> levels(count);
    for (size_t i = 0; i < count; ++i) levels[i] = double(i) / double(count - 1);
    return levels;
}

double earthMoversDistance(const std::vector<double>& sortedA, const std::vector<double>& sortedB) {
    if (sortedA.empty() || sortedB.empty()) return 0;
    // Midpoints of 1,000 equal shares of the probability: the integral of |F^-1 - G^-1|.
    constexpr size_t kShares = 1000;
    std::vector<double> levels(kShares);
    for (size_t i = 0; i < kShares; ++i) levels[i] = (double(i) + 0.5) / double(kShares);
    const std::vector<double> a = quantilesOfSorted(sortedA, levels),
                              b = quantilesOfSorted(sortedB, levels);
    double sum = 0;
    for (size_t i = 0; i < kShares; ++i) sum += std::fabs(a[i] - b[i]);
    return sum / double(kShares);
}

QuantileMap::QuantileMap(const std::vector<double>& from, const std::vector<double>& to) {
    const size_t n = std::min(from.size(), to.size());
    // Knots of one `from` become one, at the mean of their `to`.
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sum = 0;
        while (j < n && from[j] == from[i]) sum += to[j++];
        m_x.push_back(from[i]);
        m_y.push_back(sum / double(j - i));
        i = j;
    }
    const size_t k = m_x.size();
    if (k < 2) return;
    // Fritsch and Carlson: the secants' mean as tangents, limited so that no piece overshoots.
    std::vector<double> secant(k - 1);
    for (size_t i = 0; i + 1 < k; ++i) secant[i] = (m_y[i + 1] - m_y[i]) / (m_x[i + 1] - m_x[i]);
    m_slope.assign(k, 0);
    m_slope[0] = secant[0];
    m_slope[k - 1] = secant[k - 2];
    for (size_t i = 1; i + 1 < k; ++i)
        m_slope[i] = secant[i - 1] * secant[i] > 0 ? (secant[i - 1] + secant[i]) / 2 : 0;
    for (size_t i = 0; i + 1 < k; ++i) {
        if (secant[i] == 0) {
            m_slope[i] = m_slope[i + 1] = 0;
            continue;
        }
        const double a = m_slope[i] / secant[i], b = m_slope[i + 1] / secant[i];
        const double r = a * a + b * b;
        if (r > 9) {
            const double t = 3 / std::sqrt(r);
            m_slope[i] = t * a * secant[i];
            m_slope[i + 1] = t * b * secant[i];
        }
    }
}

double QuantileMap::operator()(double x) const {
    if (m_x.empty() || std::isnan(x)) return x;
    if (m_x.size() == 1) return x + (m_y[0] - m_x[0]);
    if (x <= m_x.front()) return m_y.front() + (x - m_x.front());
    if (x >= m_x.back()) return m_y.back() + (x - m_x.back());
    const size_t i = size_t(std::upper_bound(m_x.begin(), m_x.end(), x) - m_x.begin()) - 1;
    const double h = m_x[i + 1] - m_x[i], t = (x - m_x[i]) / h;
    const double t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * m_y[i] + (t3 - 2 * t2 + t) * h * m_slope[i] +
           (-2 * t3 + 3 * t2) * m_y[i + 1] + (t3 - t2) * h * m_slope[i + 1];
}

}  // namespace sepal
