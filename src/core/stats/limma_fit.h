#pragma once
// Row-wise weighted linear models (limma's lmFit) and contrasts of their coefficients.

#include <Eigen/Dense>
#include <vector>

namespace sepal::stats {

/// One linear model per row of a data matrix, all with the same design.
struct LinearModelFit {
    Eigen::MatrixXd coefficients;    ///< rows x coefficients; NaN where a row cannot estimate it
    Eigen::MatrixXd stdevUnscaled;   ///< rows x coefficients; standard errors over sigma
    std::vector<double> sigma;       ///< residual standard deviation per row (NaN with no df)
    std::vector<double> dfResidual;  ///< residual degrees of freedom per row
    std::vector<double> averages;    ///< mean of each row's observed values (the trend covariate)
    Eigen::MatrixXd designCorrelation;  ///< correlation of the coefficients for the whole design
};

/// Fits y (rows x samples; NaN = missing) on design (samples x coefficients) row by row, each
/// row on its observed samples with positive weight. weights (rows x samples, may be null) are
/// precision weights. With block (one group id per sample, may be empty) samples of one group
/// are correlated by `correlation` (generalised least squares). Coefficients a row cannot tell
/// apart are NaN. Throws InputError when sizes disagree or the design is not of full rank.
LinearModelFit fitLinearModels(const Eigen::MatrixXd& y, const Eigen::MatrixXd& design,
                               const Eigen::MatrixXd* weights = nullptr,
                               const std::vector<int>& block = {}, double correlation = 0);

/// One contrast of the fitted coefficients per row.
struct ContrastFit {
    std::vector<double> estimate;       ///< contrast of the coefficients (NaN if not estimable)
    std::vector<double> stdevUnscaled;  ///< its standard error over sigma
};

/// limma's contrasts.fit for one contrast: the estimate is exact; its standard error combines
/// the rows' coefficient standard errors with the whole design's coefficient correlation (the
/// approximation limma makes for rows with weights or missing values).
ContrastFit fitContrast(const LinearModelFit& fit, const Eigen::VectorXd& contrast);

/// The correlation matrix of samples implied by block ids and a within-block correlation.
Eigen::MatrixXd blockCorrelationMatrix(const std::vector<int>& block, double correlation);

}  // namespace sepal::stats
