#include "core/stats/limma_least_squares.h"

#include <cmath>
#include <limits>

namespace sepal::stats {

namespace {

Eigen::MatrixXd keptColumnsOf(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& columns) {
    Eigen::MatrixXd kept(x.rows(), Eigen::Index(columns.size()));
    for (size_t j = 0; j < columns.size(); ++j) kept.col(Eigen::Index(j)) = x.col(columns[j]);
    return kept;
}

}  // namespace

std::vector<Eigen::Index> estimableColumns(const Eigen::MatrixXd& x) {
    constexpr double tolerance = 1e-7;
    std::vector<Eigen::Index> kept;
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
        const double norm = x.col(j).norm();
        if (norm == 0) continue;
        Eigen::VectorXd remainder = x.col(j);
        if (!kept.empty()) {
            const Eigen::MatrixXd basis = keptColumnsOf(x, kept);
            const Eigen::HouseholderQR<Eigen::MatrixXd> qr(basis);
            const Eigen::MatrixXd q =
                qr.householderQ() * Eigen::MatrixXd::Identity(x.rows(), Eigen::Index(kept.size()));
            remainder -= q * (q.transpose() * remainder);
        }
        if (remainder.norm() >= tolerance * norm) kept.push_back(j);
    }
    return kept;
}

LeastSquaresFit solveLeastSquares(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    LeastSquaresFit fit;
    fit.coefficients = Eigen::VectorXd::Constant(x.cols(), nan);
    fit.stdevUnscaled = Eigen::VectorXd::Constant(x.cols(), nan);
    const std::vector<Eigen::Index> kept = estimableColumns(x);
    fit.rank = Eigen::Index(kept.size());
    if (kept.empty()) {
        fit.residualSumOfSquares = y.squaredNorm();
        return fit;
    }
    const Eigen::MatrixXd basis = keptColumnsOf(x, kept);
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(basis);
    const Eigen::VectorXd beta = qr.solve(y);
    const Eigen::MatrixXd r = qr.matrixQR().topRows(fit.rank).triangularView<Eigen::Upper>();
    // (X'X)^-1 = R^-1 R^-T: the row norms of R^-1 are the unscaled standard deviations.
    const Eigen::MatrixXd rInverse =
        r.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(fit.rank, fit.rank));
    for (size_t j = 0; j < kept.size(); ++j) {
        fit.coefficients[kept[j]] = beta[Eigen::Index(j)];
        fit.stdevUnscaled[kept[j]] = rInverse.row(Eigen::Index(j)).norm();
    }
    fit.residualSumOfSquares = (y - basis * beta).squaredNorm();
    return fit;
}

Eigen::MatrixXd residualSpaceBasis(const Eigen::MatrixXd& x) {
    const std::vector<Eigen::Index> kept = estimableColumns(x);
    const Eigen::Index n = x.rows();
    const Eigen::Index rank = Eigen::Index(kept.size());
    if (rank == 0) return Eigen::MatrixXd::Identity(n, n);
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(keptColumnsOf(x, kept));
    const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(n, n);
    return q.rightCols(n - rank);
}

}  // namespace sepal::stats
