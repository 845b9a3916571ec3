#pragma once
// The checks every differential abundance test makes of its input (edgeR's and the GLMM's).

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace sepal::stats {

/// Throws InputError, prefixed with `where` ("differential abundance (edgeR): "), when the
/// sizes disagree, a count is negative or not finite, the design or contrast is not finite, the
/// contrast is zero, the design is not of full rank, or it leaves no residual degrees of freedom
/// (`noResidual` says what they were needed for).
void checkAbundanceInput(const Eigen::MatrixXd& counts, const std::vector<std::string>& populations,
                         const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast,
                         const std::string& where, const std::string& noResidual);

}  // namespace sepal::stats
