#include "core/stats/limma_fit.h"

#include <cmath>
#include <limits>
#include <string>

#include "core/common/error.h"
#include "core/stats/limma_least_squares.h"

namespace sepal::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Eigen::MatrixXd covarianceToCorrelation(const Eigen::MatrixXd& cov) {
    const Eigen::VectorXd sd = cov.diagonal().cwiseSqrt();
    return sd.cwiseInverse().asDiagonal() * cov * sd.cwiseInverse().asDiagonal();
}

/// L^-1 of the lower Cholesky factor of v applied to m: the whitening of correlated samples.
Eigen::MatrixXd whiten(const Eigen::LLT<Eigen::MatrixXd>& cholesky, const Eigen::MatrixXd& m) {
    return cholesky.matrixL().solve(m);
}

}  // namespace

Eigen::MatrixXd blockCorrelationMatrix(const std::vector<int>& block, double correlation) {
    const Eigen::Index n = Eigen::Index(block.size());
    Eigen::MatrixXd v(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j)
            v(i, j) = i == j ? 1.0 : (block[size_t(i)] == block[size_t(j)] ? correlation : 0.0);
    return v;
}

LinearModelFit fitLinearModels(const Eigen::MatrixXd& y, const Eigen::MatrixXd& design,
                               const Eigen::MatrixXd* weights, const std::vector<int>& block,
                               double correlation) {
    const Eigen::Index rows = y.rows(), samples = y.cols(), coefs = design.cols();
    if (design.rows() != samples)
        throw InputError("linear model: the design has " + std::to_string(design.rows()) +
                         " rows but the data " + std::to_string(samples) + " samples");
    if (weights && (weights->rows() != rows || weights->cols() != samples))
        throw InputError("linear model: weights are " + std::to_string(weights->rows()) + " x " +
                         std::to_string(weights->cols()) + " but the data " + std::to_string(rows) +
                         " x " + std::to_string(samples));
    const bool correlated = !block.empty();
    if (correlated && Eigen::Index(block.size()) != samples)
        throw InputError("linear model: " + std::to_string(block.size()) + " block ids for " +
                         std::to_string(samples) + " samples");
    if (correlated && !(std::abs(correlation) < 1))
        throw InputError("linear model: the block correlation must lie in (-1, 1)");
    if (Eigen::Index(estimableColumns(design).size()) != coefs)
        throw InputError("linear model: the design is not of full column rank");

    const Eigen::MatrixXd sampleCorrelation = correlated
                                                  ? blockCorrelationMatrix(block, correlation)
                                                  : Eigen::MatrixXd::Identity(samples, samples);
    LinearModelFit fit;
    // The design's own coefficient correlation (no weights, no missing values) is what
    // contrasts use to combine standard errors.
    {
        const Eigen::LLT<Eigen::MatrixXd> cholesky(sampleCorrelation);
        const Eigen::MatrixXd x = whiten(cholesky, design);
        const Eigen::MatrixXd xtx = x.transpose() * x;
        fit.designCorrelation =
            covarianceToCorrelation(xtx.ldlt().solve(Eigen::MatrixXd::Identity(coefs, coefs)));
    }
    fit.coefficients = Eigen::MatrixXd::Constant(rows, coefs, kNaN);
    fit.stdevUnscaled = Eigen::MatrixXd::Constant(rows, coefs, kNaN);
    fit.sigma.assign(size_t(rows), kNaN);
    fit.dfResidual.assign(size_t(rows), 0.0);
    fit.averages.assign(size_t(rows), kNaN);

    std::vector<Eigen::Index> observed;
    for (Eigen::Index r = 0; r < rows; ++r) {
        double sum = 0;
        observed.clear();
        for (Eigen::Index s = 0; s < samples; ++s) {
            if (!std::isfinite(y(r, s))) continue;
            sum += y(r, s);
            observed.push_back(s);
        }
        if (!observed.empty()) fit.averages[size_t(r)] = sum / double(observed.size());
        // Samples without positive weight take no part in the fit.
        if (weights)
            std::erase_if(observed, [&](Eigen::Index s) { return !((*weights)(r, s) > 0); });
        const Eigen::Index n = Eigen::Index(observed.size());
        if (n == 0) continue;
        Eigen::MatrixXd x(n, coefs);
        Eigen::VectorXd values(n), rootWeight(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            x.row(i) = design.row(observed[size_t(i)]);
            values[i] = y(r, observed[size_t(i)]);
            rootWeight[i] = weights ? std::sqrt((*weights)(r, observed[size_t(i)])) : 1.0;
        }
        if (correlated) {
            // Covariance of the observed samples: block correlation scaled by 1/sqrt(w_i w_j).
            Eigen::MatrixXd v(n, n);
            for (Eigen::Index i = 0; i < n; ++i)
                for (Eigen::Index j = 0; j < n; ++j)
                    v(i, j) = sampleCorrelation(observed[size_t(i)], observed[size_t(j)]) /
                              (rootWeight[i] * rootWeight[j]);
            const Eigen::LLT<Eigen::MatrixXd> cholesky(v);
            x = whiten(cholesky, x);
            values = whiten(cholesky, values);
        } else {
            x = rootWeight.asDiagonal() * x;
            values = rootWeight.asDiagonal() * values;
        }
        const LeastSquaresFit ls = solveLeastSquares(x, values);
        fit.coefficients.row(r) = ls.coefficients.transpose();
        fit.stdevUnscaled.row(r) = ls.stdevUnscaled.transpose();
        const double df = double(n - ls.rank);
        fit.dfResidual[size_t(r)] = df;
        if (df > 0) fit.sigma[size_t(r)] = std::sqrt(ls.residualSumOfSquares / df);
    }
    return fit;
}

ContrastFit fitContrast(const LinearModelFit& fit, const Eigen::VectorXd& contrast) {
    const Eigen::Index rows = fit.coefficients.rows(), coefs = fit.coefficients.cols();
    if (contrast.size() != coefs)
        throw InputError("contrast: " + std::to_string(contrast.size()) + " weights for " +
                         std::to_string(coefs) + " coefficients");
    ContrastFit out;
    out.estimate.assign(size_t(rows), kNaN);
    out.stdevUnscaled.assign(size_t(rows), kNaN);
    for (Eigen::Index r = 0; r < rows; ++r) {
        double estimate = 0;
        bool estimable = true;
        Eigen::VectorXd scaled = Eigen::VectorXd::Zero(coefs);
        for (Eigen::Index j = 0; j < coefs; ++j) {
            if (contrast[j] == 0) continue;  // coefficients outside the contrast do not matter
            if (std::isnan(fit.coefficients(r, j))) estimable = false;
            estimate += contrast[j] * fit.coefficients(r, j);
            scaled[j] = contrast[j] * fit.stdevUnscaled(r, j);
        }
        if (!estimable) continue;
        out.estimate[size_t(r)] = estimate;
        out.stdevUnscaled[size_t(r)] = std::sqrt(scaled.dot(fit.designCorrelation * scaled));
    }
    return out;
}

}  // namespace sepal::stats
