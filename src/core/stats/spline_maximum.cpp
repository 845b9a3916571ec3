#include "core/stats/spline_maximum.h"

#include <cmath>
#include <string>

#include "core/common/error.h"

namespace sepal::stats {
namespace {

// Second derivatives of the interpolating cubic spline at the knots. Inside, the first
// derivative is continuous; at each end the spline's (constant) third derivative on the end
// interval equals that of the cubic through the four points nearest that end.
Eigen::VectorXd splineSecondDerivatives(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
    const Eigen::Index n = x.size();
    const Eigen::VectorXd h = x.tail(n - 1) - x.head(n - 1);
    const Eigen::VectorXd slope = (y.tail(n - 1) - y.head(n - 1)).cwiseQuotient(h);
    const auto thirdDividedDifference = [&](Eigen::Index first) {
        const double left = (slope(first + 1) - slope(first)) / (x(first + 2) - x(first));
        const double right = (slope(first + 2) - slope(first + 1)) / (x(first + 3) - x(first + 1));
        return (right - left) / (x(first + 3) - x(first));
    };
    Eigen::MatrixXd system = Eigen::MatrixXd::Zero(n, n);
    Eigen::VectorXd rhs(n);
    system(0, 0) = -1;
    system(0, 1) = 1;
    rhs(0) = 6 * h(0) * thirdDividedDifference(0);
    for (Eigen::Index i = 1; i + 1 < n; ++i) {
        system(i, i - 1) = h(i - 1);
        system(i, i) = 2 * (h(i - 1) + h(i));
        system(i, i + 1) = h(i);
        rhs(i) = 6 * (slope(i) - slope(i - 1));
    }
    system(n - 1, n - 2) = -1;
    system(n - 1, n - 1) = 1;
    rhs(n - 1) = 6 * h(n - 2) * thirdDividedDifference(n - 4);
    return system.partialPivLu().solve(rhs);
}

}  // namespace

double maximizeInterpolant(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
    const Eigen::Index n = x.size();
    if (n < 4 || y.size() != n)
        throw InputError("maximizeInterpolant: need at least 4 points and one value per point (" +
                         std::to_string(n) + " points, " + std::to_string(y.size()) + " values)");
    Eigen::Index best = 0;
    for (Eigen::Index i = 1; i < n; ++i)
        if (y(i) > y(best)) best = i;
    const Eigen::VectorXd second = splineSecondDerivatives(x, y);

    double bestX = x(best), bestY = y(best);
    // On interval i the spline is y_i + b t + c t^2 + d t^3 with t = x - x_i in [0, h].
    const auto tryInterval = [&](Eigen::Index i) {
        const double h = x(i + 1) - x(i);
        const double c = second(i) / 2;
        const double d = (second(i + 1) - second(i)) / (6 * h);
        const double b = (y(i + 1) - y(i)) / h - h * (2 * second(i) + second(i + 1)) / 6;
        // The derivative b + 2c t + 3d t^2 vanishes at a maximum where the curvature is negative.
        const double discriminant = c * c - 3 * d * b;
        if (discriminant < 0) return;
        const double root = std::sqrt(discriminant);
        // Two algebraically equal forms of the same root; each avoids cancellation on its side.
        const double t = c <= 0 ? b / (root - c) : (-c - root) / (3 * d);
        if (!(t > 0 && t < h)) return;
        const double value = y(i) + t * (b + t * (c + t * d));
        if (value > bestY) {
            bestY = value;
            bestX = x(i) + t;
        }
    };
    if (best > 0) tryInterval(best - 1);
    if (best + 1 < n) tryInterval(best);
    return bestX;
}

}  // namespace sepal::stats
