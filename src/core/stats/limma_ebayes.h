#pragma once
// Moderated t-statistics (limma's eBayes) for one contrast of row-wise linear models.

#include <vector>

#include "core/stats/limma_fit.h"

namespace sepal::stats {

/// Moderated t-tests of one contrast, one entry per row (NaN where the contrast is not
/// estimable).
struct ModeratedTests {
    std::vector<double> t;             ///< estimate / (stdevUnscaled * posterior sigma)
    std::vector<double> pValue;        ///< two-sided, t distribution with dfTotal df
    std::vector<double> dfTotal;       ///< residual + prior df, capped at the pooled residual df
    std::vector<double> posteriorVar;  ///< moderated residual variance
    std::vector<double> priorVar;      ///< prior residual variance (the trend with trend=true)
    double priorDf = 0;                ///< prior degrees of freedom (may be infinite)
};

/// limma's eBayes: squeezes the rows' residual variances toward a common prior (trended on the
/// rows' average values when `trend`) and tests the contrast with the moderated t. Throws
/// InputError when no row has residual degrees of freedom.
ModeratedTests moderatedTests(const LinearModelFit& fit, const ContrastFit& contrast,
                              bool trend = false);

}  // namespace sepal::stats
