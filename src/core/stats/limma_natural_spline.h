#pragma once
// Natural cubic spline basis for smoothing a trend on a covariate (as the variance trend needs).

#include <Eigen/Dense>
#include <vector>

namespace sepal::stats {

/// Knots of a natural cubic spline with `df` basis functions (intercept included): the range of
/// x as boundary knots and df-2 interior knots at evenly spaced quantiles of x.
std::vector<double> naturalSplineKnots(const std::vector<double>& x, int df);

/// Basis of the natural cubic splines on `knots` evaluated at x: one column per knot, linear
/// beyond the boundary knots. Spans the same functions as any other basis on those knots.
Eigen::MatrixXd naturalSplineBasis(const std::vector<double>& x, const std::vector<double>& knots);

/// Quantile of x at probability p, interpolating between order statistics (R's default, type 7).
double quantileType7(std::vector<double> x, double p);

}  // namespace sepal::stats
