#pragma once
// Consensus correlation of samples within blocks (limma's duplicateCorrelation with a block).

#include <Eigen/Dense>
#include <vector>

namespace sepal::stats {

/// The within-block correlation estimated row by row and its consensus over rows.
struct BlockCorrelation {
    double consensus = 0;             ///< tanh of the trimmed mean of the rows' atanh values
    std::vector<double> atanhPerRow;  ///< atanh of each row's estimate (NaN where not estimated)
};

/// Estimates the correlation of samples that share a block id: per row, the two variance
/// components (residual, block) by REML on the row's observed positive-weight samples; the rows'
/// correlations are clamped to [1/(1 - largest block) + 0.01, 0.99] and combined as tanh of the
/// 15%-trimmed mean of their atanh. Zero when every block has one sample or when the design
/// already contains the blocks. y: rows x samples (NaN = missing); weights may be null.
BlockCorrelation duplicateCorrelation(const Eigen::MatrixXd& y, const Eigen::MatrixXd& design,
                                      const std::vector<int>& block,
                                      const Eigen::MatrixXd* weights = nullptr);

/// The two variance components (residual, block) of y = X b + Z u + e by REML through a gamma
/// GLM on the residual space's rotated squares (damped Fisher scoring, at most 20 iterations).
/// Returns NaN components when they cannot be estimated.
Eigen::Vector2d blockVarianceComponents(const Eigen::VectorXd& y, const Eigen::MatrixXd& x,
                                        const Eigen::MatrixXd& z);

}  // namespace sepal::stats
