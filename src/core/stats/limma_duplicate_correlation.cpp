#include "core/stats/limma_duplicate_correlation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "core/common/error.h"
#include "core/stats/limma_least_squares.h"

namespace sepal::stats {

namespace {

constexpr double kNaNDupCor = std::numeric_limits<double>::quiet_NaN();

/// Gamma deviance of y against means mu (pairs where both are ~0 do not count).
double gammaDeviance(const Eigen::VectorXd& y, const Eigen::VectorXd& mu) {
    if ((mu.array() < 0).any()) return std::numeric_limits<double>::infinity();
    double sum = 0;
    for (Eigen::Index i = 0; i < y.size(); ++i) {
        if (y[i] < 1e-15 && mu[i] < 1e-15) continue;
        sum += (y[i] - mu[i]) / mu[i] - std::log(y[i] / mu[i]);
    }
    return 2 * sum;
}

/// Gamma GLM with identity link by Levenberg-damped Fisher scoring from `start`, as the variance
/// components need: the means stay positive because a step that raises the deviance is damped.
Eigen::VectorXd fitGammaIdentity(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                 Eigen::VectorXd beta) {
    constexpr double tolerance = 1e-6;
    constexpr int maxIterations = 20;
    const Eigen::Index p = x.cols();
    Eigen::VectorXd mu = x * beta;
    if ((mu.array() < 0).any()) return Eigen::VectorXd::Constant(p, kNaNDupCor);
    double deviance = gammaDeviance(y, mu);
    double lambda = 0;
    for (int iteration = 1;; ++iteration) {
        // Variances mu^2, floored at a thousandth of the largest so no point dominates.
        Eigen::VectorXd v = mu.array().square();
        v = v.cwiseMax(v.maxCoeff() / 1e3);
        const Eigen::MatrixXd information = x.transpose() * v.cwiseInverse().asDiagonal() * x;
        const double maxInformation = information.diagonal().maxCoeff();
        if (iteration == 1) lambda = std::abs(information.diagonal().mean()) / double(p);
        const Eigen::VectorXd score = x.transpose() * (y - mu).cwiseQuotient(v);
        const Eigen::VectorXd previous = beta;
        const double previousDeviance = deviance;
        Eigen::VectorXd step;
        int tries = 0;
        for (;;) {
            ++tries;
            const Eigen::MatrixXd damped = information + lambda * Eigen::MatrixXd::Identity(p, p);
            const Eigen::LLT<Eigen::MatrixXd> cholesky(damped);
            if (cholesky.info() != Eigen::Success) return Eigen::VectorXd::Constant(p, kNaNDupCor);
            step = cholesky.solve(score);
            beta = previous + step;
            mu = x * beta;
            deviance = gammaDeviance(y, mu);
            if (deviance <= previousDeviance || deviance / mu.maxCoeff() < 1e-15) break;
            if (lambda / maxInformation > 1e15) {
                beta = previous;
                break;
            }
            lambda *= 2;
        }
        if (lambda / maxInformation > 1e15) break;
        if (tries == 1) lambda /= 10;
        if (score.dot(step) < tolerance || deviance / mu.maxCoeff() < 1e-15) break;
        if (iteration > maxIterations) break;
    }
    return beta;
}

double trimmedMean(std::vector<double> values, double trim) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    if (n == 0) return kNaNDupCor;
    const size_t low = size_t(std::floor(double(n) * trim));
    const size_t high = n - low;  // one past the last kept
    if (low >= high) return values[n / 2];
    double sum = 0;
    for (size_t i = low; i < high; ++i) sum += values[i];
    return sum / double(high - low);
}

/// True when the block indicators lie in the span of the design (the design encodes them).
bool designContainsBlocks(const Eigen::MatrixXd& design, const std::vector<int>& block) {
    std::map<int, Eigen::Index> level;
    for (int b : block) level.emplace(b, 0);
    Eigen::Index next = 0;
    for (auto& [id, column] : level) column = next++;
    Eigen::MatrixXd indicators = Eigen::MatrixXd::Zero(design.rows(), next);
    for (size_t s = 0; s < block.size(); ++s) indicators(Eigen::Index(s), level[block[s]]) = 1;
    // The first level is left out as a treatment-coded factor would.
    const Eigen::MatrixXd contrasts = indicators.rightCols(next - 1);
    const Eigen::MatrixXd residualBasis = residualSpaceBasis(design);
    return (residualBasis.transpose() * contrasts).cwiseAbs().maxCoeff() < 1e-8;
}

}  // namespace

Eigen::Vector2d blockVarianceComponents(const Eigen::VectorXd& y, const Eigen::MatrixXd& x,
                                        const Eigen::MatrixXd& z) {
    const Eigen::MatrixXd q = residualSpaceBasis(x);
    const Eigen::Index m = q.cols();
    if (m == 0) return Eigen::Vector2d::Constant(kNaNDupCor);
    // Rotate the residual space so the block design is diagonal: the squared rotated residuals
    // are independent with means residualVar + blockVar * d (d: squared singular values).
    const Eigen::MatrixXd qz = q.transpose() * z;
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(qz, Eigen::ComputeFullU);
    Eigen::VectorXd d = Eigen::VectorXd::Zero(m);
    const Eigen::VectorXd singular = svd.singularValues();
    for (Eigen::Index i = 0; i < std::min<Eigen::Index>(m, singular.size()); ++i)
        d[i] = singular[i] * singular[i];
    const Eigen::VectorXd rotated = svd.matrixU().transpose() * (q.transpose() * y);
    const Eigen::VectorXd squares = rotated.array().square();
    Eigen::MatrixXd dx(m, 2);
    dx.col(0).setOnes();
    dx.col(1) = d;
    // Moment start: least squares of the squares on (1, d).
    const LeastSquaresFit start = solveLeastSquares(dx, squares);
    Eigen::VectorXd components = start.coefficients;
    const double meanD = d.mean();
    const double varianceD = m > 1 ? (d.array() - meanD).square().sum() / double(m - 1) : 0;
    const Eigen::Index nonzeroD = (d.array().abs() > 1e-15).count();
    if (m > 2 && nonzeroD > 1 && varianceD > 1e-15) {
        Eigen::VectorXd initial = components;
        if (((dx * components).array() < 0).any()) initial = Eigen::Vector2d(squares.mean(), 0);
        if (squares.maxCoeff() == 0) return Eigen::Vector2d::Zero();
        components = fitGammaIdentity(dx, squares, initial);
    }
    return Eigen::Vector2d(components[0], components[1]);
}

BlockCorrelation duplicateCorrelation(const Eigen::MatrixXd& y, const Eigen::MatrixXd& design,
                                      const std::vector<int>& block,
                                      const Eigen::MatrixXd* weights) {
    const Eigen::Index rows = y.rows(), samples = y.cols(), coefs = design.cols();
    if (design.rows() != samples || Eigen::Index(block.size()) != samples)
        throw InputError("block correlation: " + std::to_string(samples) + " samples but " +
                         std::to_string(design.rows()) + " design rows and " +
                         std::to_string(block.size()) + " block ids");
    if (weights && (weights->rows() != rows || weights->cols() != samples))
        throw InputError("block correlation: the weights are not rows x samples");
    BlockCorrelation out;
    out.atanhPerRow.assign(size_t(rows), 0.0);
    std::map<int, int> blockSize;
    for (int b : block) ++blockSize[b];
    int largestBlock = 0;
    for (const auto& [id, size] : blockSize) largestBlock = std::max(largestBlock, size);
    if (largestBlock <= 1 || designContainsBlocks(design, block)) return out;

    std::vector<double> rho(size_t(rows), kNaNDupCor);
    // Each row's fit is its own (two thousand rows of a 50 x 40 markers study take most of the
    // state test's time): rows on all threads, each result in its own slot.
#pragma omp parallel for schedule(dynamic, 16) if (rows > 64)
    for (Eigen::Index r = 0; r < rows; ++r) {
        std::vector<Eigen::Index> observed;
        for (Eigen::Index s = 0; s < samples; ++s)
            if (std::isfinite(y(r, s)) && (!weights || (*weights)(r, s) > 0)) observed.push_back(s);
        const Eigen::Index n = Eigen::Index(observed.size());
        std::map<int, Eigen::Index> level;
        for (Eigen::Index s : observed) level.emplace(block[size_t(s)], 0);
        const Eigen::Index blocks = Eigen::Index(level.size());
        // Enough samples for the fixed effects and both components, and blocks that vary.
        if (!(n > coefs + 2 && blocks > 1 && blocks < n - 1)) continue;
        Eigen::Index next = 0;
        for (auto& [id, column] : level) column = next++;
        Eigen::MatrixXd x(n, coefs), z = Eigen::MatrixXd::Zero(n, blocks);
        Eigen::VectorXd values(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            const Eigen::Index s = observed[size_t(i)];
            // Weights scale the fixed part and the residual but not the block effect.
            const double root = weights ? std::sqrt((*weights)(r, s)) : 1.0;
            x.row(i) = root * design.row(s);
            values[i] = root * y(r, s);
            z(i, level[block[size_t(s)]]) = 1;
        }
        const Eigen::Vector2d components = blockVarianceComponents(values, x, z);
        if (!std::isnan(components[0]))
            rho[size_t(r)] = components[1] / (components[0] + components[1]);
    }
    const double rhoMax = 0.99;
    const double rhoMin = 1.0 / (1.0 - largestBlock) + 0.01;
    std::vector<double> finite;
    for (size_t r = 0; r < rho.size(); ++r) {
        double value = rho[r];
        if (!std::isnan(value)) value = std::clamp(value, rhoMin, rhoMax);
        out.atanhPerRow[r] = std::atanh(value);
        if (!std::isnan(value)) finite.push_back(out.atanhPerRow[r]);
    }
    if (finite.empty())
        throw InputError("block correlation: no row has enough samples to estimate it");
    out.consensus = std::tanh(trimmedMean(finite, 0.15));
    return out;
}

}  // namespace sepal::stats
