#include "core/stats/nb_glm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <boost/math/special_functions/gamma.hpp>

namespace sepal::stats {
namespace {

// Newton-Raphson settings of the fits: the one-group solve stops on a step below 1e-10 (at most
// 50 steps); the damped solve on a predicted deviance decrease below 1e-6 (at most 250 steps).
constexpr int kOneGroupMaxSteps = 50;
constexpr double kOneGroupTolerance = 1e-10;
constexpr int kLevenbergMaxSteps = 250;
constexpr double kLevenbergTolerance = 1e-6;
// A group of zeros has a log-mean of minus infinity; clamping keeps its coefficients finite.
constexpr double kMostNegativeLogMean = -1e8;

// Unit deviance in three regimes. Counts and means are lifted by 1e-8 so that zeros need no
// special case. Below dispersion 1e-4 the deviance is a series about the Poisson deviance,
// y log(y/mu) - (y - mu) - (y - mu)^2 phi (1 - phi y) / 2; for phi * mu above 1e6 the gamma
// limit. These are the forms the published DA-edgeR results were computed with (the series is
// coarse for large residuals, which matters at the smallest grid dispersion): keeping them keeps
// dispersions and p-values comparable to those results.
double unitDeviance(double y, double mu, double phi) {
    y += 1e-8;
    mu += 1e-8;
    if (phi < 1e-4) {
        const double residual = y - mu;
        return 2 *
               (y * std::log(y / mu) - residual - 0.5 * residual * residual * phi * (1 - phi * y));
    }
    if (phi * mu > 1e6) return 2 * ((y - mu) / mu - std::log(y / mu)) * mu / (1 + phi * mu);
    // log1p keeps small dispersions accurate.
    return 2 *
           (y * std::log(y / mu) + (y + 1 / phi) * (std::log1p(phi * mu) - std::log1p(phi * y)));
}

Eigen::VectorXd meansFor(const Eigen::MatrixXd& design, const Eigen::VectorXd& offset,
                         const Eigen::VectorXd& beta) {
    return (offset + design * beta).array().exp().matrix();
}

// Sample j's group: the index of the first sample with the same design row.
std::vector<Eigen::Index> designGroups(const Eigen::MatrixXd& design,
                                       std::vector<Eigen::Index>& firstOfGroup) {
    const double scale = std::max(1.0, design.cwiseAbs().maxCoeff());
    std::vector<Eigen::Index> group(size_t(design.rows()));
    firstOfGroup.clear();
    for (Eigen::Index j = 0; j < design.rows(); ++j) {
        size_t g = 0;
        while (g < firstOfGroup.size() &&
               (design.row(j) - design.row(firstOfGroup[g])).cwiseAbs().maxCoeff() > 1e-10 * scale)
            ++g;
        if (g == firstOfGroup.size()) firstOfGroup.push_back(j);
        group[size_t(j)] = Eigen::Index(g);
    }
    return group;
}

// One-way layout: each group's mean is its own intercept-only fit; the coefficients follow by
// solving the distinct design rows against the group log-means.
NbGlmFit fitOneWay(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                   const Eigen::VectorXd& offset, double dispersion,
                   const std::vector<Eigen::Index>& group,
                   const std::vector<Eigen::Index>& firstOfGroup) {
    const Eigen::Index groups = Eigen::Index(firstOfGroup.size());
    Eigen::VectorXd logMean(groups);
    for (Eigen::Index g = 0; g < groups; ++g) {
        std::vector<Eigen::Index> members;
        for (size_t j = 0; j < group.size(); ++j)
            if (group[j] == g) members.push_back(Eigen::Index(j));
        logMean(g) = std::max(kMostNegativeLogMean,
                              fitNbInterceptOnly(y(members), offset(members), dispersion));
    }
    Eigen::MatrixXd distinctRows(groups, design.cols());
    for (Eigen::Index g = 0; g < groups; ++g) distinctRows.row(g) = design.row(firstOfGroup[g]);
    NbGlmFit fit;
    fit.coefficients = distinctRows.partialPivLu().solve(logMean);
    fit.fitted.resize(y.size());
    for (Eigen::Index j = 0; j < y.size(); ++j)
        fit.fitted(j) = std::exp(logMean(group[size_t(j)]) + offset(j));
    fit.deviance = nbDeviance(y, fit.fitted, dispersion);
    return fit;
}

// Newton-Raphson on the log-likelihood with Levenberg damping: lambda added to the information
// matrix's diagonal is raised until a step lowers the deviance, and relaxed after steps taken
// at once. Coefficients running off to minus infinity (zero counts) make the information matrix
// numerically singular; more damping lets the other coefficients converge meanwhile.
NbGlmFit fitLevenberg(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                      const Eigen::VectorXd& offset, double dispersion,
                      const Eigen::VectorXd* start) {
    const Eigen::Index n = y.size(), p = design.cols();
    NbGlmFit fit;
    const double ymax = y.maxCoeff();
    if (ymax < 1e-10) {
        fit.coefficients = Eigen::VectorXd::Constant(p, std::numeric_limits<double>::quiet_NaN());
        fit.fitted = Eigen::VectorXd::Zero(n);
        fit.deviance = 0;
        return fit;
    }
    Eigen::VectorXd beta;
    if (start != nullptr && start->size() == p && start->allFinite()) {
        beta = *start;
    } else {
        // Start at the common rate: the mean of y/N over samples, weighted by N / (1 + phi N)
        // (the rate's precision in each sample), expressed in the design's coefficients.
        const Eigen::ArrayXd libSize = offset.array().exp();
        const Eigen::ArrayXd precision = libSize / (1 + dispersion * libSize);
        const double logRate = std::log((precision * y.array() / libSize).sum() / precision.sum());
        beta = design.colPivHouseholderQr().solve(Eigen::VectorXd::Constant(n, logRate));
    }
    Eigen::VectorXd mu = meansFor(design, offset, beta);
    double dev = nbDeviance(y, mu, dispersion);
    double maxInfo = -1, lambda = 0;
    for (int step = 1; step <= kLevenbergMaxSteps; ++step) {
        const Eigen::ArrayXd denom = 1 + dispersion * mu.array();
        const Eigen::VectorXd weight = (mu.array() / denom).matrix();
        const Eigen::VectorXd score = ((y - mu).array() / denom).matrix();
        const Eigen::MatrixXd info = design.transpose() * weight.asDiagonal() * design;
        const Eigen::VectorXd gradient = design.transpose() * score;
        maxInfo = std::max(maxInfo, info.diagonal().maxCoeff());
        if (step == 1) lambda = std::max(maxInfo * 1e-6, 1e-13);

        int tries = 0;
        bool lowDeviance = false, failed = false;
        Eigen::VectorXd dbeta;
        while (true) {
            ++tries;
            Eigen::LLT<Eigen::MatrixXd> chol;
            while (true) {
                Eigen::MatrixXd damped = info;
                damped.diagonal().array() += lambda;
                chol.compute(damped);
                if (chol.info() == Eigen::Success) break;
                lambda = lambda > 0 ? lambda * 10 : 1e-100;
            }
            dbeta = chol.solve(gradient);
            const Eigen::VectorXd betaNew = beta + dbeta;
            const Eigen::VectorXd muNew = meansFor(design, offset, betaNew);
            const double devNew = nbDeviance(y, muNew, dispersion);
            lowDeviance = devNew / ymax < 1e-13;
            if (devNew <= dev || lowDeviance) {
                beta = betaNew;
                mu = muNew;
                dev = devNew;
                break;
            }
            lambda = lambda > 0 ? lambda * 2 : 1e-100;
            if (lambda / maxInfo > 1e13) {
                failed = true;
                break;
            }
        }
        if (failed || lowDeviance) break;
        if (gradient.dot(dbeta) < kLevenbergTolerance) break;
        if (tries == 1) lambda /= 10;
    }
    fit.coefficients = beta;
    fit.fitted = mu;
    fit.deviance = dev;
    return fit;
}

}  // namespace

double nbDeviance(const Eigen::VectorXd& y, const Eigen::VectorXd& mu, double dispersion) {
    double sum = 0;
    for (Eigen::Index j = 0; j < y.size(); ++j) sum += unitDeviance(y(j), mu(j), dispersion);
    return sum;
}

double nbLogLikelihood(const Eigen::VectorXd& y, const Eigen::VectorXd& mu, double dispersion) {
    const double size = 1 / dispersion;
    double sum = 0;
    for (Eigen::Index j = 0; j < y.size(); ++j) {
        const double count = y(j), mean = mu(j);
        double term = -size * std::log1p(mean / size);
        if (count > 0)
            term += boost::math::lgamma(count + size) - boost::math::lgamma(size) -
                    boost::math::lgamma(count + 1) +
                    count * (std::log(mean) - std::log(mean + size));
        sum += term;
    }
    return sum;
}

double fitNbInterceptOnly(const Eigen::VectorXd& y, const Eigen::VectorXd& offset,
                          double dispersion) {
    const double total = y.sum();
    if (!(total > 0)) return -std::numeric_limits<double>::infinity();
    double beta = std::log(total / offset.array().exp().sum());
    for (int step = 0; step < kOneGroupMaxSteps; ++step) {
        const Eigen::ArrayXd mu = (beta + offset.array()).exp();
        const Eigen::ArrayXd denom = 1 + dispersion * mu;
        const double score = ((y.array() - mu) / denom).sum();
        const double info = (mu / denom).sum();
        const double change = score / info;
        beta += change;
        if (std::abs(change) < kOneGroupTolerance) break;
    }
    return beta;
}

NbGlmFit fitNbGlm(const Eigen::VectorXd& y, const Eigen::MatrixXd& design,
                  const Eigen::VectorXd& offset, double dispersion, const Eigen::VectorXd* start) {
    std::vector<Eigen::Index> firstOfGroup;
    const std::vector<Eigen::Index> group = designGroups(design, firstOfGroup);
    if (Eigen::Index(firstOfGroup.size()) == design.cols())
        return fitOneWay(y, design, offset, dispersion, group, firstOfGroup);
    return fitLevenberg(y, design, offset, dispersion, start);
}

}  // namespace sepal::stats
