#pragma once
// Compensation: undoing fluorescence spillover with the inverse of the spillover matrix.

#include <cstddef>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal {

/// Inverse of the n x n row-major matrix `m` (Gauss-Jordan with partial pivoting, double
/// precision). Throws InputError mentioning `what` when the matrix is singular or not finite.
std::vector<double> invertMatrix(const std::vector<double>& m, size_t n, const std::string& what);

/// A spillover matrix resolved against a table: the channels' column indices and the inverse.
struct ResolvedCompensation {
    std::vector<size_t> columns;  ///< table column of each spillover channel, in matrix order
    std::vector<double>
        inverse;  ///< channels x channels, row-major: compensated = observed * inverse
};

/// Checks that every channel of `spillover` exists in `table` (InputError listing the missing
/// ones) and inverts the matrix; `origin` names the matrix in errors (default: the table's own
/// $SPILLOVER/SPILL keyword).
ResolvedCompensation resolveCompensation(const io::Spillover& spillover, const io::Table& table,
                                         const std::string& origin = "");

}  // namespace sepal
