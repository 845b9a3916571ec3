#pragma once
// Which columns of a matrix are linearly independent of the columns before them.

#include <vector>

#include <Eigen/Dense>

namespace sepal::stats {

/// Indices, in order, of the columns that are not (numerically) a combination of the columns
/// kept before them: a column whose part orthogonal to those keeps less than 1e-7 of its norm is
/// dropped. The count is the matrix's numerical rank.
std::vector<Eigen::Index> independentColumns(const Eigen::MatrixXd& matrix);

/// Numerical column rank of a matrix (the number of independentColumns).
Eigen::Index numericalRank(const Eigen::MatrixXd& matrix);

}  // namespace sepal::stats
