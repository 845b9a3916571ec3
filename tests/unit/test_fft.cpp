// The grid FFT: the same numbers as the discrete Fourier transform's sum, zero rows skipped
// without changing them, the inverse undoing the forward, and sizes it cannot take refused.

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/common/fft.h"

namespace sepal {
namespace {

using Grid = std::vector<std::complex<double>>;

Grid randomGrid(size_t n, size_t rows, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    Grid g(n * n, 0.0);
    for (size_t i = 0; i < rows * n; ++i) g[i] = {u(rng), u(rng)};
    return g;
}

Grid naiveDft(const Grid& g, size_t n) {
    const double pi = std::acos(-1.0);
    Grid out(n * n, 0.0);
    for (size_t k = 0; k < n; ++k)
        for (size_t l = 0; l < n; ++l)
            for (size_t x = 0; x < n; ++x)
                for (size_t y = 0; y < n; ++y)
                    out[k * n + l] +=
                        g[x * n + y] * std::polar(1.0, -2 * pi * double(k * x + l * y) / double(n));
    return out;
}

TEST(Fft2d, EqualsTheDiscreteFourierTransformsSum) {
    for (size_t n : {2, 8, 16}) {
        for (size_t rows : {n, n / 2}) {
            const Grid g = randomGrid(n, rows, unsigned(n + rows));
            const Grid want = naiveDft(g, n);
            Grid got = g;
            // Rows past `rows` hold garbage: forward must read them as the zeros they stand for.
            for (size_t i = rows * n; i < n * n; ++i) got[i] = {7, -3};
            Fft2d(n).forward(got.data(), rows);
            for (size_t i = 0; i < n * n; ++i)
                EXPECT_LT(std::abs(got[i] - want[i]), 1e-12 * double(n * n)) << n << " " << i;
        }
    }
}

TEST(Fft2d, InverseUndoesForwardOnTheRowsAskedFor) {
    const size_t n = 64;
    const Grid g = randomGrid(n, n / 2, 3);
    Grid t = g;
    const Fft2d fft(n);
    fft.forward(t.data(), n / 2);
    fft.inverse(t.data(), n / 2);
    for (size_t i = 0; i < n / 2 * n; ++i) EXPECT_LT(std::abs(t[i] - g[i]), 1e-13);
}

TEST(Fft2d, RefusesSizesThatAreNotPowersOfTwo) {
    EXPECT_THROW(Fft2d(0), std::invalid_argument);
    EXPECT_THROW(Fft2d(1), std::invalid_argument);
    EXPECT_THROW(Fft2d(12), std::invalid_argument);
    EXPECT_EQ(Fft2d(32).size(), 32u);
}

}  // namespace
}  // namespace sepal
