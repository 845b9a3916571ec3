#include "core/stats/fdist_fit.h"

#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "core/common/error.h"
#include "core/stats/limma_natural_spline.h"

namespace sepal::stats {

double trigammaInverse(double value) {
    if (std::isnan(value)) return value;
    if (value < 0) throw InputError("trigammaInverse: negative argument " + std::to_string(value));
    // The asymptotes of trigamma: 1/y for large y, 1/y^2 near zero.
    if (value > 1e7) return 1.0 / std::sqrt(value);
    if (value < 1e-6) return 1.0 / value;
    // 1/trigamma(y) is nearly linear in y, so Newton on it converges fast from 0.5 + 1/value.
    const auto reciprocalGap = [value](double y) {
        const double tri = boost::math::trigamma(y);
        const double tetra = boost::math::polygamma(2, y);
        return std::pair<double, double>(1.0 / tri - 1.0 / value, -tetra / (tri * tri));
    };
    const double start = 0.5 + 1.0 / value;
    std::uintmax_t iterations = 100;
    return boost::math::tools::newton_raphson_iterate(reciprocalGap, start, 1e-300, 1e300, 50,
                                                      iterations);
}

namespace {

// The common median helper is float-only; the variance prior needs doubles.
double medianOfDoubles(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// How many spline basis functions the trend gets: more with more points, never more than the
/// distinct covariate values.
int trendSplineDf(const std::vector<double>& covariate) {
    const size_t n = covariate.size();
    int df = 1 + (n >= 3) + (n >= 6) + (n >= 30);
    const std::set<double> distinct(covariate.begin(), covariate.end());
    return std::min<int>(df, int(distinct.size()));
}

/// Infinite covariate values sit one unit beyond the finite range (all infinite: their sign).
std::vector<double> finiteCovariate(std::vector<double> c) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : c) {
        if (std::isnan(v)) throw InputError("fitFDist: the covariate has a missing value");
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    const bool anyFinite = lo <= hi;
    for (double& v : c) {
        if (std::isfinite(v)) continue;
        if (anyFinite)
            v = v < 0 ? lo - 1 : hi + 1;
        else
            v = v < 0 ? -1 : 1;
    }
    return c;
}

}  // namespace

FDistFit fitFDist(const std::vector<double>& x, const std::vector<double>& df1,
                  const std::vector<double>* covariate) {
    const size_t n = x.size();
    if (df1.size() != n && df1.size() != 1)
        throw InputError("fitFDist: " + std::to_string(x.size()) + " variances but " +
                         std::to_string(df1.size()) + " degrees of freedom");
    if (covariate && covariate->size() != n)
        throw InputError("fitFDist: " + std::to_string(n) + " variances but " +
                         std::to_string(covariate->size()) + " covariate values");
    const auto dfAt = [&](size_t i) { return df1.size() == 1 ? df1[0] : df1[i]; };
    FDistFit fit;
    if (n == 0) return fit;
    if (n == 1) {
        fit.scale = {x[0]};
        return fit;
    }
    std::vector<double> cov;
    if (covariate) cov = finiteCovariate(*covariate);

    // Only finite variances with positive degrees of freedom inform the fit.
    std::vector<size_t> used;
    for (size_t i = 0; i < n; ++i)
        if (std::isfinite(dfAt(i)) && dfAt(i) > 1e-15 && std::isfinite(x[i]) && x[i] > -1e-15)
            used.push_back(i);
    if (used.empty()) throw InputError("fitFDist: no finite variance with positive df");
    if (used.size() == 1) {
        fit.scale.assign(n, x[used[0]]);
        return fit;
    }
    std::vector<double> usedCov;
    for (size_t i : used)
        if (covariate) usedCov.push_back(cov[i]);
    const int splineDf = covariate ? trendSplineDf(usedCov) : 1;

    // Floor zero variances a little above zero so their logs stay finite.
    std::vector<double> xs;
    for (size_t i : used) xs.push_back(std::max(x[i], 0.0));
    double m = medianOfDoubles(xs);
    if (m == 0) m = 1;
    for (double& v : xs) v = std::max(v, 1e-5 * m);

    // log(x) - E[log chi2_df/df] estimates log(scale) plus noise of variance trigamma(df/2).
    const size_t k = used.size();
    Eigen::VectorXd e(k);
    double meanTrigamma = 0;
    for (size_t j = 0; j < k; ++j) {
        const double half = dfAt(used[j]) / 2;
        e[j] = std::log(xs[j]) - boost::math::digamma(half) + std::log(half);
        meanTrigamma += boost::math::trigamma(half);
    }
    meanTrigamma /= double(k);

    Eigen::VectorXd logScale(n);  // the estimated mean of e for every x
    double residualVar;
    if (splineDf < 2) {
        const double mean = e.mean();
        logScale.setConstant(mean);
        residualVar = (e.array() - mean).square().sum() / double(k - 1);
    } else {
        const std::vector<double> knots = naturalSplineKnots(usedCov, splineDf);
        const Eigen::MatrixXd basis = naturalSplineBasis(usedCov, knots);
        Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(basis);
        qr.setThreshold(1e-7);
        const Eigen::VectorXd coef = qr.solve(e);
        const Eigen::VectorXd fitted = basis * coef;
        residualVar = (e - fitted).squaredNorm() / double(k - qr.rank());
        logScale = naturalSplineBasis(cov, knots) * coef;
    }
    residualVar -= meanTrigamma;

    fit.scale.resize(n);
    if (residualVar > 0) {
        fit.df2 = 2 * trigammaInverse(residualVar);
        const double shift = boost::math::digamma(fit.df2 / 2) - std::log(fit.df2 / 2);
        for (size_t i = 0; i < n; ++i) fit.scale[i] = std::exp(logScale[i] + shift);
    } else {
        // No spread beyond sampling noise: the prior is exact.
        fit.df2 = std::numeric_limits<double>::infinity();
        double meanX = 0;
        for (double v : xs) meanX += v;
        meanX /= double(k);
        for (size_t i = 0; i < n; ++i) fit.scale[i] = splineDf < 2 ? meanX : std::exp(logScale[i]);
    }
    return fit;
}

}  // namespace sepal::stats
