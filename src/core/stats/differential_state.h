#pragma once
// Differential state of marker medians between conditions, per population (diffcyt's DS-limma).

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace sepal::stats {

/// Settings of the differential-state test.
struct LimmaOptions {
    size_t minCells = 3;    ///< a sample counts for a population with at least this many cells
    size_t minSamples = 0;  ///< populations need minCells in this many samples (0: half of them)
    bool trend = true;      ///< trend the variance prior on the rows' average medians
    bool weights = true;    ///< weight each median by its sample's cell count
};

/// The test of one state marker in one population.
struct StateResult {
    std::string population, marker;
    bool tested = false;  ///< false when the population was filtered out (numbers are NaN)
    double logFC, t, pValue, pAdjusted;
};

/// diffcyt's testDS_limma: medians[m] is the populations x samples matrix of the samples'
/// medians of state marker m (NaN where a sample has no cells); cells is populations x samples
/// cell counts; design is samples x coefficients; contrast has one weight per coefficient; block
/// (optional) gives each sample's group (patient) for a within-group correlation. Every
/// (population, marker) pair of a kept population becomes one weighted linear model; the
/// contrast is tested by limma's moderated t and adjusted by Benjamini-Hochberg. Results come per
/// population, per marker, in input order. Throws InputError when sizes disagree.
std::vector<StateResult> differentialStateLimma(
    const std::vector<Eigen::MatrixXd>& medians, const std::vector<std::string>& markers,
    const Eigen::MatrixXd& cells, const std::vector<std::string>& populations,
    const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast,
    const std::vector<int>& block = {}, const LimmaOptions& options = {});

}  // namespace sepal::stats
