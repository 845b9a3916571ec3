#include "core/stats/differential_state.h"

#include <cmath>
#include <limits>

#include "core/common/error.h"
#include "core/stats/limma_duplicate_correlation.h"
#include "core/stats/limma_ebayes.h"
#include "core/stats/limma_fit.h"
#include "core/stats/p_adjust.h"

namespace sepal::stats {

namespace {

void checkStateInputSizes(const std::vector<Eigen::MatrixXd>& medians,
                          const std::vector<std::string>& markers, const Eigen::MatrixXd& cells,
                          const std::vector<std::string>& populations,
                          const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast,
                          const std::vector<int>& block) {
    const auto count = [](auto n) { return std::to_string(n); };
    if (medians.size() != markers.size())
        throw InputError("differential state: " + count(medians.size()) + " median matrices for " +
                         count(markers.size()) + " markers");
    if (size_t(cells.rows()) != populations.size())
        throw InputError("differential state: cell counts have " + count(cells.rows()) +
                         " rows for " + count(populations.size()) + " populations");
    const Eigen::Index samples = cells.cols();
    for (size_t m = 0; m < medians.size(); ++m)
        if (medians[m].rows() != cells.rows() || medians[m].cols() != samples)
            throw InputError("differential state: medians of marker " + markers[m] + " are " +
                             count(medians[m].rows()) + " x " + count(medians[m].cols()) +
                             ", expected " + count(cells.rows()) + " x " + count(samples) +
                             " (populations x samples)");
    if (design.rows() != samples)
        throw InputError("differential state: the design has " + count(design.rows()) +
                         " rows for " + count(samples) + " samples");
    if (contrast.size() != design.cols())
        throw InputError("differential state: the contrast has " + count(contrast.size()) +
                         " weights for " + count(design.cols()) + " design coefficients");
    if (!block.empty() && Eigen::Index(block.size()) != samples)
        throw InputError("differential state: " + count(block.size()) + " block ids for " +
                         count(samples) + " samples");
}

}  // namespace

std::vector<StateResult> differentialStateLimma(
    const std::vector<Eigen::MatrixXd>& medians, const std::vector<std::string>& markers,
    const Eigen::MatrixXd& cells, const std::vector<std::string>& populations,
    const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast, const std::vector<int>& block,
    const LimmaOptions& options) {
    checkStateInputSizes(medians, markers, cells, populations, design, contrast, block);
    const Eigen::Index samples = cells.cols();
    const double minSamples =
        options.minSamples == 0 ? double(samples) / 2 : double(options.minSamples);

    // A population is tested when enough samples have enough of its cells.
    std::vector<Eigen::Index> kept;
    for (Eigen::Index p = 0; p < cells.rows(); ++p) {
        const double enough = (cells.row(p).array() >= double(options.minCells)).count();
        if (enough >= minSamples) kept.push_back(p);
    }

    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<StateResult> results;
    for (size_t p = 0; p < populations.size(); ++p)
        for (const std::string& marker : markers)
            results.push_back({populations[p], marker, false, nan, nan, nan, nan});
    if (kept.empty() || markers.empty()) return results;

    // One row per (kept population, marker); its weights are the population's cell counts.
    const Eigen::Index rows = Eigen::Index(kept.size() * markers.size());
    Eigen::MatrixXd y(rows, samples), w(rows, samples);
    std::vector<size_t> resultIndex;
    for (size_t k = 0; k < kept.size(); ++k)
        for (size_t m = 0; m < markers.size(); ++m) {
            const Eigen::Index row = Eigen::Index(k * markers.size() + m);
            y.row(row) = medians[m].row(kept[k]);
            w.row(row) = cells.row(kept[k]);
            resultIndex.push_back(size_t(kept[k]) * markers.size() + m);
        }
    const Eigen::MatrixXd* weights = options.weights ? &w : nullptr;

    double correlation = 0;
    if (!block.empty()) correlation = duplicateCorrelation(y, design, block, weights).consensus;
    const LinearModelFit fit = fitLinearModels(y, design, weights, block, correlation);
    const ContrastFit contrastFit = fitContrast(fit, contrast);
    const ModeratedTests tests = moderatedTests(fit, contrastFit, options.trend);
    const std::vector<double> adjusted = adjustBenjaminiHochberg(tests.pValue);

    for (Eigen::Index row = 0; row < rows; ++row) {
        StateResult& r = results[resultIndex[size_t(row)]];
        r.tested = true;
        r.logFC = contrastFit.estimate[size_t(row)];
        r.t = tests.t[size_t(row)];
        r.pValue = tests.pValue[size_t(row)];
        r.pAdjusted = adjusted[size_t(row)];
    }
    return results;
}

}  // namespace sepal::stats
