#include "core/transform/arcsinh.h"

#include <bit>
#include <cstdint>

namespace sepal {

namespace {

// The natural logarithm of w >= 1 (finite): w = 2^e m with m in [sqrt(2)/2, sqrt(2)), and
// log(m) = log(1 + f) = 2 atanh(s), s = f / (2 + f), |s| < 0.172, written as
// f - (f^2/2 - s (f^2/2 + R)) with R = sum_k 2 s^(2k) / (2k + 1): the large terms exact, the
// series' eleven terms below 2^-60 of the result. ln 2 in two parts, so that e ln2Hi is exact.
// Only selects, no branches: the compiler runs it over four lanes.
__attribute__((always_inline)) inline double logAtLeastOne(double w) {
    constexpr double kLn2Hi = 0x1.62e42feep-1, kLn2Lo = 0x1.a39ef35793c76p-33;
    constexpr double kSqrt2 = 1.4142135623730951;
    const uint64_t bits = std::bit_cast<uint64_t>(w);
    // The exponent as a double without an integer conversion (none in AVX2 for 64 bits):
    // 2^52 + e' read as a double, less 2^52 + 1023.
    const double biased = std::bit_cast<double>((bits >> 52) | 0x4330000000000000ull);
    double m = std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    const bool high = m > kSqrt2;
    m = high ? m * 0.5 : m;
    const double e = (biased - 0x1p52) - (high ? 1022.0 : 1023.0);
    const double f = m - 1.0;  // exact: m is within a factor 2 of 1
    const double s = f / (2.0 + f), z = s * s;
    double r = 2.0 / 23.0;
    r = r * z + 2.0 / 21.0;
    r = r * z + 2.0 / 19.0;
    r = r * z + 2.0 / 17.0;
    r = r * z + 2.0 / 15.0;
    r = r * z + 2.0 / 13.0;
    r = r * z + 2.0 / 11.0;
    r = r * z + 2.0 / 9.0;
    r = r * z + 2.0 / 7.0;
    r = r * z + 2.0 / 5.0;
    r = r * z + 2.0 / 3.0;
    r *= z;
    const double hfsq = 0.5 * f * f;
    return e * kLn2Hi - ((hfsq - (s * (hfsq + r) + e * kLn2Lo)) - f);
}

// asinh(x) = sign(x) log(a + sqrt(a^2 + 1)), a = |x|, in the form that keeps its digits:
// a < 2^-28: x itself; a < 2: log1p(a + a^2 / (1 + sqrt(1 + a^2))), log1p(u) as log(1 + u)
// plus the part of u that 1 + u lost; a <= 2^28: log(2a + 1 / (sqrt(a^2 + 1) + a));
// beyond: log(a) + ln 2. Every form is computed and one chosen, as the lanes need.
__attribute__((always_inline)) inline double arcsinhOne(double x) {
    constexpr double kLn2 = 0.6931471805599453;
    const uint64_t sign = std::bit_cast<uint64_t>(x) & 0x8000000000000000ull;
    const double a = std::bit_cast<double>(std::bit_cast<uint64_t>(x) ^ sign);
    const bool small = a<2.0, huge = a> 0x1p28;
    const double t = __builtin_sqrt(a * a + 1.0);
    const double q = (small ? a * a : 1.0) / (small ? 1.0 + t : t + a);
    const double u = a + q;
    const double w = huge ? a : small ? 1.0 + u : 2.0 * a + q;
    const double lost = small ? (u - (w - 1.0)) / w : huge ? kLn2 : 0.0;
    const double r = logAtLeastOne(w) + lost;
    // Tiny, infinite and NaN inputs are their own result.
    const double y = a < 0x1p-28 || !(a <= 0x1.fffffffffffffp1023) ? a : r;
    return std::bit_cast<double>(std::bit_cast<uint64_t>(y) | sign);
}

__attribute__((always_inline)) inline void arcsinhLoop(double* values, size_t n, double cofactor) {
#pragma omp simd
    for (size_t i = 0; i < n; ++i) values[i] = arcsinhOne(values[i] / cofactor);
}

__attribute__((target("avx2"))) void arcsinhAvx2(double* values, size_t n, double cofactor) {
    arcsinhLoop(values, n, cofactor);
}

}  // namespace

void arcsinhInPlacePortable(double* values, size_t n, double cofactor) {
    arcsinhLoop(values, n, cofactor);
}

void arcsinhInPlace(double* values, size_t n, double cofactor) {
    static const bool avx2 = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    }();
    if (avx2)
        arcsinhAvx2(values, n, cofactor);
    else
        arcsinhInPlacePortable(values, n, cofactor);
}

double arcsinh(double x) {
    return arcsinhOne(x);
}

}  // namespace sepal
