#pragma once
// Moment estimation of a scaled F distribution from sample variances (the variance prior).

#include <vector>

namespace sepal::stats {

/// The scaled F fit to sample variances x with df1 degrees of freedom each: x ~ scale * F(df1,
/// df2). scale has one entry per x (the trend when a covariate was given, else all equal); df2
/// may be infinite (no spread beyond sampling noise).
struct FDistFit {
    std::vector<double> scale;  ///< prior variance per x
    double df2 = 0;             ///< prior degrees of freedom
};

/// limma's fitFDist: moments of log(x) matched to the log F distribution; with a covariate the
/// mean of log(x) is a natural cubic spline trend (up to 4 df, fewer for few points or distinct
/// covariate values). Non-finite or non-positive-df entries do not take part in the fit (but get
/// a trend value). df1 has one entry per x, or one for all.
FDistFit fitFDist(const std::vector<double>& x, const std::vector<double>& df1,
                  const std::vector<double>* covariate = nullptr);

/// Inverse of the trigamma function for positive arguments (Newton iteration on 1/trigamma).
double trigammaInverse(double value);

}  // namespace sepal::stats
