#pragma once
// Counts with a prior count added, and the average log counts per million of each row.

#include <Eigen/Dense>

namespace sepal::stats {

/// Counts (rows x samples) with a prior added in proportion to each sample's library size, and
/// the log library sizes that go with them.
struct PriorAdjustedCounts {
    Eigen::MatrixXd counts;  ///< counts plus the scaled prior
    Eigen::VectorXd offset;  ///< log of each library size plus twice its scaled prior
};

/// Adds priorCount * libSize_j / mean(libSize) to sample j's counts and twice that to its library
/// size, so that a log ratio of zero counts stays finite and shrinks towards zero.
PriorAdjustedCounts addPriorCount(const Eigen::MatrixXd& counts, const Eigen::VectorXd& libSize,
                                  double priorCount);

/// Average log2 counts per million of each row: the log2 of the intercept-only negative binomial
/// mean rate (at the given dispersion) of the prior-adjusted counts, times 1e6.
Eigen::VectorXd averageLogCpm(const Eigen::MatrixXd& counts, const Eigen::VectorXd& libSize,
                              double dispersion, double priorCount = 2);

}  // namespace sepal::stats
