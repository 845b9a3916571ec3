#pragma once
// Empirical Bayes moderation of sample variances toward a (possibly trended) prior.

#include <vector>

namespace sepal::stats {

/// The prior fitted to a set of sample variances and each variance's posterior.
struct SqueezedVariances {
    double priorDf = 0;            ///< prior degrees of freedom (may be infinite)
    std::vector<double> priorVar;  ///< prior variance per input variance
    std::vector<double> postVar;   ///< posterior variance per input variance
};

/// limma's squeezeVar (robust = FALSE): prior df and prior variance(s) by fitFDist, optionally
/// trended on a covariate (natural cubic spline basis as limma uses), and the posterior variances
/// (df*var + priorDf*priorVar) / (df + priorDf). df has one entry per variance or one for all; a
/// variance with df 0 (not estimable, may be NaN) gets the prior variance.
SqueezedVariances squeezeVariances(const std::vector<double>& var, const std::vector<double>& df,
                                   const std::vector<double>* covariate = nullptr);

}  // namespace sepal::stats
