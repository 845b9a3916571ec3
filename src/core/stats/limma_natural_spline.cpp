#include "core/stats/limma_natural_spline.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"

namespace sepal::stats {

double quantileType7(std::vector<double> x, double p) {
    if (x.empty()) throw InputError("quantile: no values");
    std::sort(x.begin(), x.end());
    const double h = (double(x.size()) - 1.0) * p;
    const size_t lo = size_t(std::floor(h));
    const size_t hi = std::min(lo + 1, x.size() - 1);
    return x[lo] + (h - double(lo)) * (x[hi] - x[lo]);
}

std::vector<double> naturalSplineKnots(const std::vector<double>& x, int df) {
    if (x.empty() || df < 2) throw InputError("natural spline: needs values and df >= 2");
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    std::vector<double> knots{*lo};
    const int interior = df - 2;
    for (int k = 1; k <= interior; ++k)
        knots.push_back(quantileType7(x, double(k) / double(interior + 1)));
    knots.push_back(*hi);
    return knots;
}

Eigen::MatrixXd naturalSplineBasis(const std::vector<double>& x, const std::vector<double>& knots) {
    const size_t k = knots.size();
    if (k < 2) throw InputError("natural spline: needs at least two knots");
    // Work on the knot range mapped to [0, 1] so the cubic terms stay well conditioned.
    const double origin = knots.front();
    const double span = knots.back() > knots.front() ? knots.back() - knots.front() : 1.0;
    std::vector<double> xi(k);
    for (size_t j = 0; j < k; ++j) xi[j] = (knots[j] - origin) / span;
    const auto cubePlus = [](double v) { return v > 0 ? v * v * v : 0.0; };
    // Truncated-power form: d_j is cubic between knots; the differences d_j - d_{K-2} cancel
    // the cubic and quadratic terms past the last knot, which makes each column natural.
    const auto divided = [&](size_t j, double u) {
        // A knot tied with the last one adds no function; its column stays zero.
        if (xi[k - 1] <= xi[j]) return 0.0;
        return (cubePlus(u - xi[j]) - cubePlus(u - xi[k - 1])) / (xi[k - 1] - xi[j]);
    };
    Eigen::MatrixXd basis(x.size(), k);
    for (size_t i = 0; i < x.size(); ++i) {
        const double u = (x[i] - origin) / span;
        basis(i, 0) = 1.0;
        basis(i, 1) = u;
        for (size_t j = 0; j + 2 < k; ++j) basis(i, j + 2) = divided(j, u) - divided(k - 2, u);
    }
    return basis;
}

}  // namespace sepal::stats
