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

}  // namespace sepal
