#pragma once
// Differential abundance of populations across samples by binomial generalised linear mixed
// models and Wald tests (the "DA-GLMM" method of differential discovery in cytometry): per
// population, cells of the population out of the sample's cells, logit link, the design's fixed
// effects, a random intercept per sample (observation-level, for overdispersion) and optionally
// one per patient, fitted by maximum Laplace-approximated likelihood as lme4's glmer does.

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace sepal::stats {

/// Which populations are tested.
struct GlmmOptions {
    size_t minCells = 3;    ///< a sample counts toward minSamples when it has this many cells
    size_t minSamples = 0;  ///< samples needed with minCells; 0: half the samples
};

/// One population's result; numbers are NaN when the population was not tested.
struct GlmmResult {
    std::string population;  ///< the population's name
    bool tested = false;     ///< false when filtered out or when the model could not be fitted
    double logFC = 0;        ///< the contrast of the fixed effects (log odds) over ln 2: log2 scale
    double z = 0;            ///< Wald statistic: the contrast over its standard error
    double pValue = 0;       ///< two-sided normal p-value of z
    double pAdjusted = 0;    ///< Benjamini-Hochberg adjusted over the tested populations
    double sdSample = 0;     ///< standard deviation of the per-sample random intercept (logit)
    double sdPatient = 0;    ///< standard deviation of the per-patient intercept; NaN: no block
    std::string note;        ///< why a population was not tested, or what a tested fit fell back on
};

/// Tests each population for a change in abundance. counts: populations x samples (cells per
/// population and sample); design: samples x coefficients, full column rank with fewer columns
/// than samples; contrast: one weight per coefficient; block: empty, or per sample an id of its
/// patient (at least two patients, one of them with two samples or more) for a patient random
/// intercept. Populations with fewer than options.minCells cells in fewer than
/// options.minSamples samples are not tested; a sample's trials are the tested populations'
/// cells in it. Throws InputError on inconsistent input.
std::vector<GlmmResult> differentialAbundanceGlmm(const Eigen::MatrixXd& counts,
                                                  const std::vector<std::string>& populations,
                                                  const Eigen::MatrixXd& design,
                                                  const Eigen::VectorXd& contrast,
                                                  const std::vector<int>& block = {},
                                                  const GlmmOptions& options = {});

}  // namespace sepal::stats
