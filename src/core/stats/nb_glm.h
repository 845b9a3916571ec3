#pragma once
// Negative binomial generalised linear models with a log link, fitted one row (population) at a
// time: the counts of one row across samples, a design (samples x coefficients) and per-sample
// offsets (log library sizes).

#include <Eigen/Dense>

namespace sepal::stats {

/// Summed negative binomial unit deviance of counts y with means mu at dispersion phi (phi 0 is
/// Poisson).
double nbDeviance(const Eigen::VectorXd& y, const Eigen::VectorXd& mu, double dispersion);

/// Summed negative binomial log-likelihood of counts y with means mu at dispersion phi > 0.
double nbLogLikelihood(const Eigen::VectorXd& y, const Eigen::VectorXd& mu, double dispersion);

/// Maximum likelihood log-mean of an intercept-only model (mean_j = exp(beta + offset_j)), by
/// Newton's method; minus infinity when all counts are zero.
double fitNbInterceptOnly(const Eigen::VectorXd& y, const Eigen::VectorXd& offset,
                          double dispersion);

/// One row's fit: coefficients (natural log scale), fitted means and residual deviance.
struct NbGlmFit {
    Eigen::VectorXd coefficients;  ///< one per design column
    Eigen::VectorXd fitted;        ///< fitted mean per sample
    double deviance = 0;           ///< residual deviance at the fitted means
};

/// Maximum likelihood fit of one row. A design whose distinct rows are as many as its columns (a
/// one-way layout) is fitted group by group in closed form up to a Newton solve per group (a
/// group of zeros gets mean 0); any other design by Newton-Raphson with Levenberg damping, from
/// start when given. design must have full column rank.
NbGlmFit fitNbGlm(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                  const Eigen::VectorXd& offset, double dispersion,
                  const Eigen::VectorXd* start = nullptr);

}  // namespace sepal::stats
