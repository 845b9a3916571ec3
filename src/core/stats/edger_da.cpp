#include "core/stats/edger_da.h"

#include <cmath>
#include <limits>

#include <boost/math/distributions/chi_squared.hpp>

#include "core/common/error.h"
#include "core/stats/abundance_input.h"
#include "core/stats/independent_columns.h"
#include "core/stats/log_cpm.h"
#include "core/stats/nb_dispersion.h"
#include "core/stats/nb_glm.h"
#include "core/stats/p_adjust.h"

namespace sepal::stats {
namespace {

constexpr double kLogFcPriorCount = 0.125;
constexpr double kLogCpmPriorCount = 2;

void checkInput(const Eigen::MatrixXd& counts, const std::vector<std::string>& populations,
                const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast) {
    checkAbundanceInput(counts, populations, design, contrast,
                        "differential abundance (edgeR): ", "to estimate dispersions");
}

// The design of the null hypothesis: coefficient vectors orthogonal to the contrast, in a basis.
Eigen::MatrixXd nullDesign(const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast) {
    const Eigen::Index p = design.cols();
    Eigen::Index nonZero = 0, only = 0;
    for (Eigen::Index k = 0; k < p; ++k)
        if (contrast(k) != 0) ++nonZero, only = k;
    if (nonZero == 1) {
        // The usual case, kept exact: testing one coefficient drops it.
        std::vector<Eigen::Index> others;
        for (Eigen::Index k = 0; k < p; ++k)
            if (k != only) others.push_back(k);
        return design(Eigen::all, others);
    }
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(contrast);
    const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(p, p);
    return design * q.rightCols(p - 1);
}

}  // namespace

std::vector<AbundanceResult> differentialAbundanceEdgeR(const Eigen::MatrixXd& counts,
                                                        const std::vector<std::string>& populations,
                                                        const Eigen::MatrixXd& design,
                                                        const Eigen::VectorXd& contrast,
                                                        const EdgeROptions& options) {
    checkInput(counts, populations, design, contrast);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Eigen::Index samples = counts.cols();
    std::vector<AbundanceResult> results(populations.size());
    const double minSamples =
        options.minSamples == 0 ? double(samples) / 2 : double(options.minSamples);
    std::vector<Eigen::Index> tested;
    for (Eigen::Index i = 0; i < counts.rows(); ++i) {
        AbundanceResult& r = results[size_t(i)];
        r.population = populations[size_t(i)];
        r.logFC = r.logCPM = r.LR = r.pValue = r.pAdjusted = nan;
        const double enough = double((counts.row(i).array() >= double(options.minCells)).count());
        if (enough >= minSamples) tested.push_back(i);
    }
    if (tested.empty()) return results;

    const Eigen::MatrixXd kept = counts(tested, Eigen::all);
    const Eigen::VectorXd libSize = kept.colwise().sum().transpose();
    for (Eigen::Index j = 0; j < samples; ++j)
        if (!(libSize(j) > 0))
            throw InputError("differential abundance (edgeR): sample " + std::to_string(j + 1) +
                             " has no cells in the populations tested");
    const Eigen::VectorXd offset = libSize.array().log().matrix();

    const DispersionEstimates dispersion = estimateDispersions(kept, design, offset);
    const Eigen::VectorXd logCpm =
        averageLogCpm(kept, libSize, dispersion.common, kLogCpmPriorCount);
    const PriorAdjustedCounts shrunk = addPriorCount(kept, libSize, kLogFcPriorCount);
    const Eigen::MatrixXd design0 = nullDesign(design, contrast);
    const boost::math::chi_squared chiSquare1(1);

    std::vector<double> pValues(tested.size());
    for (size_t t = 0; t < tested.size(); ++t) {
        const Eigen::Index row = Eigen::Index(t);
        const double phi = dispersion.tagwise(row);
        const Eigen::VectorXd y = kept.row(row).transpose();
        const NbGlmFit full = fitNbGlm(y, design, offset, phi);
        const NbGlmFit null = fitNbGlm(y, design0, offset, phi);
        const NbGlmFit forFoldChange =
            fitNbGlm(shrunk.counts.row(row).transpose(), design, shrunk.offset, phi);
        AbundanceResult& r = results[size_t(tested[t])];
        r.tested = true;
        r.logFC = forFoldChange.coefficients.dot(contrast) / std::log(2.0);
        r.logCPM = logCpm(row);
        r.LR = null.deviance - full.deviance;
        r.pValue = r.LR > 0 ? boost::math::cdf(boost::math::complement(chiSquare1, r.LR)) : 1.0;
        pValues[t] = r.pValue;
    }
    const std::vector<double> adjusted = adjustBenjaminiHochberg(pValues);
    for (size_t t = 0; t < tested.size(); ++t) results[size_t(tested[t])].pAdjusted = adjusted[t];
    return results;
}

}  // namespace sepal::stats
