#include "core/common/fft.h"

#include <cmath>
#include <stdexcept>

namespace sepal {

namespace {
constexpr size_t kColumnBlock = 8;  // columns gathered at once: 128 contiguous bytes of a row
}  // namespace

Fft2d::Fft2d(size_t size) : m_size(size) {
    if (size < 2 || (size & (size - 1)) != 0)
        throw std::invalid_argument("Fft2d: the size must be a power of two of at least 2");
    m_twiddle.resize(size / 2);
    const double pi = std::acos(-1.0);
    for (size_t k = 0; k < size / 2; ++k)
        m_twiddle[k] = std::polar(1.0, -2.0 * pi * double(k) / double(size));
    m_reversed.resize(size);
    size_t bits = 0;
    while ((size_t(1) << bits) < size) ++bits;
    for (size_t i = 0; i < size; ++i) {
        size_t r = 0;
        for (size_t b = 0; b < bits; ++b)
            if (i & (size_t(1) << b)) r |= size_t(1) << (bits - 1 - b);
        m_reversed[i] = r;
    }
}

void Fft2d::transformLine(std::complex<double>* line, bool inverse) const {
    const size_t n = m_size;
    for (size_t i = 0; i < n; ++i)
        if (i < m_reversed[i]) std::swap(line[i], line[m_reversed[i]]);
    // Butterflies on the real and imaginary parts (std::complex's product checks for
    // infinities at every step unless the whole program is built with -ffast-math).
    double* v = reinterpret_cast<double*>(line);
    const double sign = inverse ? -1.0 : 1.0;
    for (size_t half = 1; half < n; half *= 2) {
        const size_t step = n / (2 * half);
        for (size_t start = 0; start < n; start += 2 * half)
            for (size_t k = 0; k < half; ++k) {
                const double wr = m_twiddle[k * step].real(),
                             wi = sign * m_twiddle[k * step].imag();
                double* a = v + 2 * (start + k);
                double* b = v + 2 * (start + k + half);
                const double tr = wr * b[0] - wi * b[1], ti = wr * b[1] + wi * b[0];
                b[0] = a[0] - tr, b[1] = a[1] - ti;
                a[0] += tr, a[1] += ti;
            }
    }
}

void Fft2d::columns(std::complex<double>* grid, bool inverse) const {
    const size_t n = m_size;
#pragma omp parallel
    {
        std::vector<std::complex<double>> block(kColumnBlock * n);
#pragma omp for schedule(static)
        for (long long cc = 0; cc < static_cast<long long>(n); cc += kColumnBlock) {
            const size_t c0 = size_t(cc), width = std::min(kColumnBlock, n - c0);
            for (size_t r = 0; r < n; ++r)
                for (size_t c = 0; c < width; ++c) block[c * n + r] = grid[r * n + c0 + c];
            for (size_t c = 0; c < width; ++c) transformLine(block.data() + c * n, inverse);
            for (size_t r = 0; r < n; ++r)
                for (size_t c = 0; c < width; ++c) grid[r * n + c0 + c] = block[c * n + r];
        }
    }
}

void Fft2d::forward(std::complex<double>* grid, size_t rows) const {
    const size_t n = m_size;
    rows = std::min(rows, n);
#pragma omp parallel for schedule(static)
    for (long long r = 0; r < static_cast<long long>(rows); ++r)
        transformLine(grid + size_t(r) * n, false);
    // A zero row transforms to zeros.
    for (size_t i = rows * n; i < n * n; ++i) grid[i] = 0.0;
    columns(grid, false);
}

void Fft2d::inverse(std::complex<double>* grid, size_t rows) const {
    const size_t n = m_size;
    rows = std::min(rows, n);
    columns(grid, true);
    const double scale = 1.0 / double(n * n);
#pragma omp parallel for schedule(static)
    for (long long r = 0; r < static_cast<long long>(rows); ++r) {
        std::complex<double>* line = grid + size_t(r) * n;
        transformLine(line, true);
        for (size_t c = 0; c < n; ++c) line[c] *= scale;
    }
}

}  // namespace sepal
