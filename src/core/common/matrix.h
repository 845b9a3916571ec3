#pragma once
// A dense row-major float32 matrix, the common currency between readers, transforms and projectors.

#include <cstddef>
#include <vector>

namespace sepal {

/// Dense matrix of rows x cols float32 values, row-major (element (i, j) at i * cols + j).
struct Matrix {
    size_t rows = 0;            ///< number of rows (events, landmarks)
    size_t cols = 0;            ///< number of columns (dimensions)
    std::vector<float> values;  ///< rows * cols values, row-major

    Matrix() = default;
    /// A rows x cols matrix filled with `fill`.
    Matrix(size_t r, size_t c, float fill = 0.0f) : rows(r), cols(c), values(r * c, fill) {}

    /// Pointer to the first value of row i.
    float* row(size_t i) { return values.data() + i * cols; }
    /// Pointer to the first value of row i.
    const float* row(size_t i) const { return values.data() + i * cols; }
    /// Element (i, j).
    float& at(size_t i, size_t j) { return values[i * cols + j]; }
    /// Element (i, j).
    float at(size_t i, size_t j) const { return values[i * cols + j]; }
    /// Pointer to all values.
    float* data() { return values.data(); }
    /// Pointer to all values.
    const float* data() const { return values.data(); }
    /// True when the matrix holds no values.
    bool empty() const { return values.empty(); }
};

/// Read-only rows of a dense row-major float32 matrix that someone else holds (a Matrix, or a
/// caller's buffer that is not worth copying into one).
struct RowsView {
    const float* values = nullptr;  ///< rows * cols values, row-major
    size_t rows = 0;                ///< number of rows
    size_t cols = 0;                ///< number of columns

    RowsView() = default;
    /// The rows x cols values at `v`.
    RowsView(const float* v, size_t r, size_t c) : values(v), rows(r), cols(c) {}
    /// All of m (implicit: a Matrix goes wherever a view is asked for).
    RowsView(const Matrix& m) : values(m.data()), rows(m.rows), cols(m.cols) {}

    /// Pointer to the first value of row i.
    const float* row(size_t i) const { return values + i * cols; }
};

}  // namespace sepal
