#include "core/stats/independent_columns.h"

namespace sepal::stats {

std::vector<Eigen::Index> independentColumns(const Eigen::MatrixXd& matrix) {
    std::vector<Eigen::Index> kept;
    // Orthonormal basis of the kept columns; projecting twice keeps it orthogonal to rounding.
    Eigen::MatrixXd basis(matrix.rows(), 0);
    for (Eigen::Index col = 0; col < matrix.cols(); ++col) {
        const double norm = matrix.col(col).norm();
        if (norm == 0) continue;
        Eigen::VectorXd residual = matrix.col(col);
        for (int pass = 0; pass < 2; ++pass) residual -= basis * (basis.transpose() * residual);
        const double left = residual.norm();
        if (left < 1e-7 * norm) continue;
        basis.conservativeResize(Eigen::NoChange, basis.cols() + 1);
        basis.col(basis.cols() - 1) = residual / left;
        kept.push_back(col);
    }
    return kept;
}

Eigen::Index numericalRank(const Eigen::MatrixXd& matrix) {
    return Eigen::Index(independentColumns(matrix).size());
}

}  // namespace sepal::stats
