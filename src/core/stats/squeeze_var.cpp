#include "core/stats/squeeze_var.h"

#include <cmath>
#include <string>

#include "core/common/error.h"
#include "core/stats/fdist_fit.h"

namespace sepal::stats {

SqueezedVariances squeezeVariances(const std::vector<double>& var, const std::vector<double>& df,
                                   const std::vector<double>* covariate) {
    const size_t n = var.size();
    if (n == 0) throw InputError("squeezeVariances: no variances");
    if (df.size() != n && df.size() != 1)
        throw InputError("squeezeVariances: " + std::to_string(n) + " variances but " +
                         std::to_string(df.size()) + " degrees of freedom");
    SqueezedVariances out;
    if (n == 1) {
        out.priorVar = var;
        out.postVar = var;
        return out;
    }
    const auto dfAt = [&](size_t i) { return df.size() == 1 ? df[0] : df[i]; };
    // A variance without residual df carries no information; zero keeps it out of the sums.
    std::vector<double> cleaned = var;
    if (df.size() > 1)
        for (size_t i = 0; i < n; ++i)
            if (df[i] == 0) cleaned[i] = 0;

    const FDistFit fit = fitFDist(cleaned, df, covariate);
    if (std::isnan(fit.df2)) throw InputError("squeezeVariances: could not estimate the prior df");
    out.priorDf = fit.df2;
    out.priorVar = fit.scale;
    out.postVar.resize(n);
    for (size_t i = 0; i < n; ++i) {
        if (std::isinf(out.priorDf)) {
            out.postVar[i] = out.priorVar[i];
        } else {
            const double d = dfAt(i);
            out.postVar[i] = (d * cleaned[i] + out.priorDf * out.priorVar[i]) / (d + out.priorDf);
        }
    }
    return out;
}

}  // namespace sepal::stats
