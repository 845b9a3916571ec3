#pragma once
// Differential abundance of populations across samples by negative binomial GLMs and
// likelihood ratio tests (the "DA-edgeR" method of differential discovery in cytometry).

#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace sepal::stats {

/// Which populations are tested.
struct EdgeROptions {
    size_t minCells = 3;    ///< a sample counts toward minSamples when it has this many cells
    size_t minSamples = 0;  ///< samples needed with minCells; 0: half the samples
};

/// One population's result; numbers are NaN when the population was not tested.
struct AbundanceResult {
    std::string population;  ///< the population's name
    bool tested = false;     ///< false when filtered out for too few cells
    double logFC = 0;        ///< log2 fold change of the contrast (prior count 0.125 shrinkage)
    double logCPM = 0;       ///< average log2 cells per million
    double LR = 0;           ///< likelihood ratio statistic (1 df)
    double z = NAN;          ///< the GLMM's Wald statistic (NaN for edgeR)
    double pValue = 0;       ///< chi-square p-value of LR
    double pAdjusted = 0;    ///< Benjamini-Hochberg adjusted over the tested populations
};

/// Tests each population for a change in abundance. counts: populations x samples (cells per
/// population and sample); design: samples x coefficients, full column rank with fewer columns
/// than samples; contrast: one weight per coefficient. Populations with fewer than
/// options.minCells cells in fewer than options.minSamples samples are not tested; library sizes
/// are the tested populations' cells per sample. Dispersions are estimated per population with
/// empirical Bayes shrinkage toward a common value. Throws InputError on inconsistent input.
std::vector<AbundanceResult> differentialAbundanceEdgeR(const Eigen::MatrixXd& counts,
                                                        const std::vector<std::string>& populations,
                                                        const Eigen::MatrixXd& design,
                                                        const Eigen::VectorXd& contrast,
                                                        const EdgeROptions& options = {});

}  // namespace sepal::stats
