#include "core/transform/logicle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/common/error.h"

namespace sepal {

namespace {

void require(bool ok, const std::string& field, const std::string& rule, double value) {
    if (!ok)
        throw InputError("logicle parameter " + field + " = " + std::to_string(value) +
                         " is invalid: " + rule);
}

/// Solves 2 (ln d - ln b) + w (b + d) = 0 for d in (0, b]: the condition that makes the
/// biexponential's second derivative vanish at data zero. The left side increases with d, is
/// -inf at 0 and >= 0 at b, so a Newton iteration guarded by bisection always converges.
double solveD(double b, double w) {
    if (w == 0) return b;
    double lo = 0, hi = b;
    double d = b / 2;
    for (int i = 0; i < 200; ++i) {
        const double g = 2 * (std::log(d) - std::log(b)) + w * (b + d);
        if (g < 0)
            lo = d;
        else
            hi = d;
        double next = d - g / (2 / d + w);
        if (!(next > lo && next < hi)) next = (lo + hi) / 2;
        if (std::abs(next - d) <= 2 * std::numeric_limits<double>::epsilon() * b) return next;
        d = next;
    }
    return d;
}

}  // namespace

Logicle::Logicle(const LogicleParams& p) {
    require(std::isfinite(p.T) && p.T > 0, "T", "the top of scale must be positive", p.T);
    require(std::isfinite(p.M) && p.M > 0, "M", "the decades of display must be positive", p.M);
    require(std::isfinite(p.W) && p.W >= 0 && 2 * p.W <= p.M, "W",
            "the linear width must lie between 0 and M / 2", p.W);
    require(std::isfinite(p.A) && -p.A <= p.W && p.A <= p.M - 2 * p.W, "A",
            "the extra negative decades must lie between -W and M - 2W", p.A);

    const double decades = p.M + p.A;
    const double w = p.W / decades;
    const double x2 = p.A / decades;
    m_x1 = x2 + w;
    const double x0 = x2 + 2 * w;
    m_b = decades * std::log(10.0);
    m_d = solveD(m_b, w);
    const double cOverA = std::exp(x0 * (m_b + m_d));
    const double minusFOverA = std::exp(m_b * m_x1) - cOverA * std::exp(-m_d * m_x1);
    m_a = p.T / (std::exp(m_b) - minusFOverA - cOverA * std::exp(-m_d));
    m_c = cOverA * m_a;
    m_f = -minusFOverA * m_a;

    // Near data zero the two exponentials nearly cancel; a Taylor series about x1 keeps the
    // relative precision of small values.
    const double positive = m_a * std::exp(m_b * m_x1);
    const double negative = m_c * std::exp(-m_d * m_x1);
    double bk = 1, dk = 1, factorial = 1;
    for (size_t k = 1; k <= m_series.size(); ++k) {
        bk *= m_b;
        dk *= -m_d;
        factorial *= static_cast<double>(k);
        m_series[k - 1] = (positive * bk - negative * dk) / factorial;
    }
    m_series[1] = 0;  // zero by construction (the condition solveD enforces)
    m_seriesLimit = w / 4;
}

double Logicle::biexponential(double y) const {
    const double t = y - m_x1;
    if (t < m_seriesLimit) {
        double sum = 0;
        for (size_t k = m_series.size(); k > 0; --k) sum = (sum + m_series[k - 1]) * t;
        return sum;
    }
    return (m_a * std::exp(m_b * y) + m_f) - m_c * std::exp(-m_d * y);
}

double Logicle::slopeAt(double y) const {
    return m_a * m_b * std::exp(m_b * y) + m_c * m_d * std::exp(-m_d * y);
}

double Logicle::curvatureAt(double y) const {
    return m_a * m_b * m_b * std::exp(m_b * y) - m_c * m_d * m_d * std::exp(-m_d * y);
}

double Logicle::inverse(double position) const {
    if (std::isnan(position)) return position;
    // The scale is odd about data zero: positions below x1 mirror those above.
    if (position < m_x1) return -biexponential(2 * m_x1 - position);
    return biexponential(position);
}

double Logicle::scale(double value) const {
    if (std::isnan(value)) return value;
    if (value == 0) return m_x1;
    if (std::isinf(value)) return value;
    const bool negative = value < 0;
    const double v = std::abs(value);

    // Bracket the root of B(y) = v on [x1, hi]: B is increasing and convex above x1, so its
    // tangent at x1 and its dominant exponential both bound y from above.
    const double slope0 = slopeAt(m_x1);
    double lo = m_x1;
    double hi = m_x1 + v / slope0;
    const double logArgument = (v - m_f + m_c * std::exp(-m_d * m_x1)) / m_a;
    if (logArgument > 0) hi = std::min(hi, std::max(lo, std::log(logArgument) / m_b));
    hi = std::max(hi, lo);

    double y = hi;
    for (int i = 0; i < 100; ++i) {
        const double r = biexponential(y) - v;
        if (r > 0)
            hi = y;
        else
            lo = y;
        const double d1 = slopeAt(y);
        const double d2 = curvatureAt(y);
        // Halley's step (cubic convergence); Newton's where Halley's correction is unreliable.
        const double correction = 1 - r * d2 / (2 * d1 * d1);
        double step = r / d1;
        if (correction > 0.5 && std::isfinite(correction)) step /= correction;
        double next = y - step;
        if (!(next >= lo && next <= hi)) next = (lo + hi) / 2;
        const bool done = std::abs(next - y) <=
                          4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(y));
        y = next;
        if (done || lo == hi) break;
    }
    return negative ? 2 * m_x1 - y : y;
}

}  // namespace sepal
