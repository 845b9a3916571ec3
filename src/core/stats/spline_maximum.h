#pragma once
// The maximum of a function known at a few points, found on its cubic spline interpolant.

#include <Eigen/Dense>

namespace sepal::stats {

/// The x at which the cubic spline through (x_i, y_i) peaks: the largest y_i's x, moved to a
/// local maximum of the spline on either interval beside it when that is higher. The spline
/// matches, at each end, the third derivative of the cubic through the four nearest points
/// (Forsythe, Malcolm and Moler's end conditions). x increasing, at least 4 points.
double maximizeInterpolant(const Eigen::VectorXd& x, const Eigen::VectorXd& y);

}  // namespace sepal::stats
