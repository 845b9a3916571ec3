#pragma once
// Negative binomial dispersions of count rows under a design: a common value for all rows and
// one per row, shrunk toward the common one by weighted likelihood empirical Bayes.

#include <Eigen/Dense>

namespace sepal::stats {

/// Cox-Reid adjusted profile log-likelihood of one row at a dispersion: the log-likelihood at
/// the fitted means minus half the log-determinant of the Fisher information of the
/// coefficients. coefficients (if given) receives the fit's coefficients, start seeds the fit.
double adjustedProfileLikelihood(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                                 const Eigen::VectorXd& offset, double dispersion,
                                 const Eigen::VectorXd* start = nullptr,
                                 Eigen::VectorXd* coefficients = nullptr);

/// The dispersion estimates and the shrinkage used for them.
struct DispersionEstimates {
    double common = 0;        ///< one dispersion for all rows
    Eigen::VectorXd tagwise;  ///< one dispersion per row, shrunk toward the common one
    double priorDf = 0;       ///< prior degrees of freedom of the shrinkage (may be infinite)
};

/// Dispersions of counts (rows x samples) under design (samples x coefficients, full rank, fewer
/// columns than samples) with offsets log(library size). Adjusted profile likelihoods are
/// evaluated on the grid 0.1 * 2^k, k = -10..10, for rows summing to at least 5 (others get the
/// common dispersion), leaving out samples whose count and fitted mean are both zero. The common
/// dispersion maximises the summed likelihood; each row's maximises its own plus prior.n times
/// the average row's, with prior.n = prior df / residual df and the prior df of the squeezed
/// deviance / df of the fits at the common dispersion. Maxima are taken on spline interpolants.
DispersionEstimates estimateDispersions(const Eigen::MatrixXd& counts,
                                        const Eigen::MatrixXd& design,
                                        const Eigen::VectorXd& offset);

}  // namespace sepal::stats
