#pragma once
// A small radix-2 fast Fourier transform of square grids, for convolutions on a grid (the
// Student-t polish's repulsion). Double precision: a convolution's values are differences of
// large sums.

#include <complex>
#include <cstddef>
#include <vector>

namespace sepal {

/// a b, without std::complex's checks for infinities (the grids hold finite values).
inline std::complex<double> multiply(std::complex<double> a, std::complex<double> b) {
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

/// The 2D discrete Fourier transform of size x size complex grids (row-major), size a power of
/// two. Rows run on all threads; the result does not depend on the thread count.
class Fft2d {
  public:
    /// Precomputes the twiddles for `size` (a power of two, at least 2); throws
    /// std::invalid_argument otherwise.
    explicit Fft2d(size_t size);
    /// The grid's side.
    size_t size() const { return m_size; }
    /// In place: grid <- DFT(grid), sum_x grid[x] exp(-2 pi i k x / size) along both axes.
    /// Only the first `rows` rows may be non-zero (the rest are read as zeros and overwritten):
    /// their row transforms are skipped.
    void forward(std::complex<double>* grid, size_t rows) const;
    /// In place: the inverse of forward (with the 1 / size^2 factor). Only the first `rows` rows
    /// of the result are computed; the others hold intermediate values.
    void inverse(std::complex<double>* grid, size_t rows) const;

  private:
    void transformLine(std::complex<double>* line, bool inverse) const;
    void columns(std::complex<double>* grid, bool inverse) const;

    size_t m_size;
    std::vector<std::complex<double>> m_twiddle;  // exp(-2 pi i k / size), k < size / 2
    std::vector<size_t> m_reversed;               // bit-reversed indices
};

}  // namespace sepal
