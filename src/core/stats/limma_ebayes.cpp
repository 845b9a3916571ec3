#include "core/stats/limma_ebayes.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

#include "core/common/error.h"
#include "core/stats/squeeze_var.h"

namespace sepal::stats {

ModeratedTests moderatedTests(const LinearModelFit& fit, const ContrastFit& contrast, bool trend) {
    const size_t rows = fit.sigma.size();
    if (contrast.estimate.size() != rows)
        throw InputError("moderated t: the contrast has " +
                         std::to_string(contrast.estimate.size()) + " rows but the fit " +
                         std::to_string(rows));
    double pooledDf = 0;
    bool anyFiniteSigma = false;
    std::vector<double> variances(rows);
    for (size_t i = 0; i < rows; ++i) {
        if (!std::isnan(fit.dfResidual[i])) pooledDf += fit.dfResidual[i];
        anyFiniteSigma |= std::isfinite(fit.sigma[i]);
        variances[i] = fit.sigma[i] * fit.sigma[i];
    }
    if (rows == 0 || pooledDf == 0 || !anyFiniteSigma)
        throw InputError("moderated t: no row has residual degrees of freedom");

    const SqueezedVariances squeezed =
        squeezeVariances(variances, fit.dfResidual, trend ? &fit.averages : nullptr);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    ModeratedTests out;
    out.priorDf = squeezed.priorDf;
    out.priorVar = squeezed.priorVar;
    out.posteriorVar = squeezed.postVar;
    out.t.assign(rows, nan);
    out.pValue.assign(rows, nan);
    out.dfTotal.resize(rows);
    for (size_t i = 0; i < rows; ++i) {
        // Prior information cannot count for more than all rows' residual df together.
        out.dfTotal[i] = std::min(fit.dfResidual[i] + squeezed.priorDf, pooledDf);
        const double t =
            contrast.estimate[i] / contrast.stdevUnscaled[i] / std::sqrt(squeezed.postVar[i]);
        if (!std::isfinite(t)) continue;
        out.t[i] = t;
        const boost::math::students_t distribution(out.dfTotal[i]);
        out.pValue[i] = 2 * boost::math::cdf(boost::math::complement(distribution, std::abs(t)));
    }
    return out;
}

}  // namespace sepal::stats
