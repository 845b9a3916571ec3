#pragma once
// t-SNE's repulsion on a grid: for every cell i, sum_j w_ij^2 (y_i - y_j) and the normaliser
// Z = sum_{i != j} w_ij, w_ij = 1 / (1 + |y_i - y_j|^2), in O(n + M^2 log M) rather than O(n^2).
// Each cell's unit charge is spread over the four grid nodes around it (bilinear weights), the
// charges are convolved with the kernels by FFT, and each cell reads the fields back with the
// same weights. With the same weights both ways a cell's own charge pushes it nowhere.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/fft.h"

namespace sepal {

/// The repulsion of one t-SNE iteration.
struct RepulsionSums {
    std::vector<double> x, y;  ///< per listed cell: sum_j w_ij^2 (y_i - y_j), by axis
    double z = 0;              ///< sum over ordered pairs of distinct cells of w_ij
};

/// Grid convolutions at a fixed node spacing; the grid grows with the picture.
class GridRepulsion {
  public:
    /// spacing: the largest distance between grid nodes in the picture's units (t-SNE's kernel
    /// has a width of about 1; the sums' error grows as its square), used finer where the
    /// grid's power-of-two side leaves room; mostNodes: the most nodes along an axis that hold
    /// cells (the side is the power of two at or above them), past which the spacing grows
    /// instead. compute() throws InputError when a listed cell's position is not finite.
    explicit GridRepulsion(double spacing, size_t mostNodes = 512);
    ~GridRepulsion();
    /// The sums for the listed cells (positions y: x0 y0 x1 y1 ... by cell index).
    void compute(const float* y, const std::vector<uint32_t>& cells, RepulsionSums& out);
    /// The grid side the last call used.
    size_t side() const { return m_side; }

  private:
    void prepareKernels(size_t side, double spacing);

    double m_spacing;
    size_t m_mostNodes;
    size_t m_side = 0;           // nodes along an axis holding cells
    double m_kernelSpacing = 0;  // spacing the kernels were transformed at
    std::unique_ptr<Fft2d> m_fft;
    std::vector<std::complex<double>> m_normaliser;  // transform of 1 / (1 + r^2)
    std::vector<std::complex<double>> m_force;       // of (dx + i dy) / (1 + r^2)^2
    std::vector<std::complex<double>> m_charges, m_field;
};

}  // namespace sepal
