#pragma once
// Plain numeric CSV matrices for `sepal-cli project` (no header row needed; one is skipped).

#include <string>

#include "core/common/matrix.h"

namespace sepal::cli {

/// Reads rows of numbers separated by commas, semicolons, tabs or spaces; a first line that is
/// not numeric is taken as a header and skipped; NaN, Inf and empty fields read as NaN. Every row
/// must have the same number of values. Throws InputError naming the file, line and column.
Matrix readCsvMatrix(const std::string& path);

/// Writes an n x 2 matrix as rows "x,y" (round-trip precision), atomically.
void writeCsvPoints(const std::string& path, const Matrix& points);

}  // namespace sepal::cli
