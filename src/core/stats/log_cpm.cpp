#include "core/stats/log_cpm.h"

#include <cmath>

#include "core/stats/nb_glm.h"

namespace sepal::stats {

PriorAdjustedCounts addPriorCount(const Eigen::MatrixXd& counts, const Eigen::VectorXd& libSize,
                                  double priorCount) {
    // Larger libraries get a larger prior so that the prior is the same in counts per million.
    const Eigen::VectorXd prior = priorCount * libSize / libSize.mean();
    PriorAdjustedCounts out;
    out.counts = counts.rowwise() + prior.transpose();
    out.offset = (libSize + 2 * prior).array().log().matrix();
    return out;
}

Eigen::VectorXd averageLogCpm(const Eigen::MatrixXd& counts, const Eigen::VectorXd& libSize,
                              double dispersion, double priorCount) {
    const PriorAdjustedCounts adjusted = addPriorCount(counts, libSize, priorCount);
    Eigen::VectorXd out(counts.rows());
    for (Eigen::Index i = 0; i < counts.rows(); ++i) {
        const double logRate =
            fitNbInterceptOnly(adjusted.counts.row(i).transpose(), adjusted.offset, dispersion);
        out(i) = (logRate + std::log(1e6)) / std::log(2.0);
    }
    return out;
}

}  // namespace sepal::stats
