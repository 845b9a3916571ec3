#pragma once
// One least-squares fit with columns that the observed rows cannot tell apart left out.

#include <Eigen/Dense>
#include <vector>

namespace sepal::stats {

/// Coefficients of one (already weighted or whitened) least-squares fit.
struct LeastSquaresFit {
    Eigen::VectorXd coefficients;   ///< NaN for columns left out as not estimable
    Eigen::VectorXd stdevUnscaled;  ///< sqrt(diag((X'X)^-1)) over the estimable columns, else NaN
    double residualSumOfSquares = 0;
    Eigen::Index rank = 0;  ///< number of estimable columns
};

/// Columns of x kept in their order, a column dropped when it lies (relative tolerance 1e-7) in
/// the span of the columns kept before it; a zero column is always dropped.
std::vector<Eigen::Index> estimableColumns(const Eigen::MatrixXd& x);

/// Ordinary least squares of y on x over the estimable columns of x.
LeastSquaresFit solveLeastSquares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y);

/// An orthonormal basis (n x (n - rank)) of the residual space of x: vectors orthogonal to the
/// estimable columns.
Eigen::MatrixXd residualSpaceBasis(const Eigen::MatrixXd& x);

}  // namespace sepal::stats
