#include "core/stats/nb_dispersion.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/stats/independent_columns.h"
#include "core/stats/nb_glm.h"
#include "core/stats/spline_maximum.h"
#include "core/stats/squeeze_var.h"

namespace sepal::stats {
namespace {

// The dispersion grid: 0.1 * 2^k for k = -10..10, searched on the log2 scale.
constexpr int kGridPoints = 21;
constexpr double kGridLow = -10, kGridHigh = 10;
// Rows with fewer counts than this in total say too little about their dispersion.
constexpr double kMinRowSum = 5;
// The dispersion used to tell which samples a row's fit puts at zero.
constexpr double kZeroFitDispersion = 0.05;
// A prior worth more than this many rows' likelihoods is infinite shrinkage: all rows common.
constexpr double kMaxPriorN = 1e6;

double gridDispersion(double log2Point) {
    return 0.1 * std::pow(2.0, log2Point);
}

// Samples where both the count and the fitted mean are (numerically) zero: they carry no
// information on the dispersion and their coefficients run off to minus infinity.
std::vector<bool> zeroFitted(const Eigen::VectorXd& y, const Eigen::VectorXd& fitted) {
    std::vector<bool> zero(size_t(y.size()));
    for (Eigen::Index j = 0; j < y.size(); ++j) zero[size_t(j)] = y(j) < 1e-4 && fitted(j) < 1e-4;
    return zero;
}

std::vector<Eigen::Index> nonZeroSamples(const std::vector<bool>& zero) {
    std::vector<Eigen::Index> kept;
    for (size_t j = 0; j < zero.size(); ++j)
        if (!zero[j]) kept.push_back(Eigen::Index(j));
    return kept;
}

// Residual degrees of freedom once samples fitted at zero are left out: the other samples less
// the rank of their design rows.
double residualDf(const std::vector<bool>& zero, const Eigen::MatrixXd& design) {
    const std::vector<Eigen::Index> kept = nonZeroSamples(zero);
    const Eigen::Index samples = design.rows();
    if (kept.empty()) return 0;
    if (Eigen::Index(kept.size()) == samples) return double(samples - design.cols());
    const Eigen::Index rank = numericalRank(design(kept, Eigen::all));
    return double(std::max<Eigen::Index>(0, Eigen::Index(kept.size()) - rank));
}

// Adjusted profile likelihoods of one row on the grid; zeros where the row has no residual df.
Eigen::RowVectorXd gridLikelihoods(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                                   const Eigen::VectorXd& offset, const Eigen::VectorXd& grid) {
    Eigen::RowVectorXd out = Eigen::RowVectorXd::Zero(grid.size());
    const NbGlmFit probe = fitNbGlm(y, design, offset, kZeroFitDispersion);
    const std::vector<Eigen::Index> kept = nonZeroSamples(zeroFitted(y, probe.fitted));
    if (kept.empty()) return out;
    Eigen::MatrixXd redesign = design;
    if (Eigen::Index(kept.size()) < design.rows()) {
        const Eigen::MatrixXd rows = design(kept, Eigen::all);
        redesign = rows(Eigen::all, independentColumns(rows));
        if (redesign.rows() == redesign.cols()) return out;
    }
    const Eigen::VectorXd ySub = y(kept), offsetSub = offset(kept);
    // Each grid point's fit starts from the previous one's coefficients.
    Eigen::VectorXd last, coefficients;
    for (Eigen::Index k = 0; k < grid.size(); ++k) {
        out(k) = adjustedProfileLikelihood(ySub, redesign, offsetSub, gridDispersion(grid(k)),
                                           k > 0 ? &last : nullptr, &coefficients);
        last = coefficients;
    }
    return out;
}

}  // namespace

double adjustedProfileLikelihood(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                                 const Eigen::VectorXd& offset, double dispersion,
                                 const Eigen::VectorXd* start, Eigen::VectorXd* coefficients) {
    const NbGlmFit fit = fitNbGlm(y, design, offset, dispersion, start);
    if (coefficients != nullptr) *coefficients = fit.coefficients;
    const double logLik = nbLogLikelihood(y, fit.fitted, dispersion);
    const Eigen::VectorXd weight =
        (fit.fitted.array() / (1 + dispersion * fit.fitted.array())).matrix();
    const Eigen::MatrixXd info = design.transpose() * weight.asDiagonal() * design;
    // log det from the LDL' factors; a vanishing pivot (a coefficient without information)
    // counts as 1e-10 rather than minus infinity.
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(info);
    const Eigen::VectorXd pivots = ldlt.vectorD();
    double logDet = 0;
    for (Eigen::Index k = 0; k < pivots.size(); ++k)
        logDet += std::log(pivots(k) < 1e-10 || !std::isfinite(pivots(k)) ? 1e-10 : pivots(k));
    return logLik - 0.5 * logDet;
}

DispersionEstimates estimateDispersions(const Eigen::MatrixXd& counts,
                                        const Eigen::MatrixXd& design,
                                        const Eigen::VectorXd& offset) {
    const Eigen::Index samples = counts.cols();
    const Eigen::VectorXd grid = Eigen::VectorXd::LinSpaced(kGridPoints, kGridLow, kGridHigh);

    std::vector<Eigen::Index> selected;
    for (Eigen::Index i = 0; i < counts.rows(); ++i)
        if (counts.row(i).sum() >= kMinRowSum) selected.push_back(i);
    Eigen::MatrixXd likelihood = Eigen::MatrixXd::Zero(Eigen::Index(selected.size()), kGridPoints);
    for (size_t s = 0; s < selected.size(); ++s)
        likelihood.row(Eigen::Index(s)) =
            gridLikelihoods(counts.row(selected[s]).transpose(), design, offset, grid);

    DispersionEstimates out;
    out.common = gridDispersion(maximizeInterpolant(grid, likelihood.colwise().sum().transpose()));
    out.tagwise = Eigen::VectorXd::Constant(counts.rows(), out.common);
    if (selected.empty()) return out;

    // Prior df: how much the rows' deviances at the common dispersion vary beyond chance.
    std::vector<double> variance, df;
    for (const Eigen::Index i : selected) {
        const Eigen::VectorXd y = counts.row(i).transpose();
        const NbGlmFit fit = fitNbGlm(y, design, offset, out.common);
        const double rowDf = residualDf(zeroFitted(y, fit.fitted), design);
        df.push_back(rowDf);
        variance.push_back(rowDf > 0 ? std::max(0.0, fit.deviance / rowDf) : 0.0);
    }
    out.priorDf = squeezeVariances(variance, df).priorDf;
    const double priorN = out.priorDf / double(samples - design.cols());
    if (!(priorN <= kMaxPriorN)) return out;

    // Each row's likelihood plus priorN times the average row's.
    const Eigen::RowVectorXd shared = likelihood.colwise().mean();
    for (size_t s = 0; s < selected.size(); ++s) {
        const Eigen::RowVectorXd weighted = likelihood.row(Eigen::Index(s)) + priorN * shared;
        out.tagwise(selected[s]) = gridDispersion(maximizeInterpolant(grid, weighted.transpose()));
    }
    return out;
}

}  // namespace sepal::stats
