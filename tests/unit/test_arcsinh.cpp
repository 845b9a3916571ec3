// The arcsinh transform's own asinh: within 2 ulp of the C library's on every scale and at the
// edges of its forms, the transformed floats the C library's, and the same bits with and without
// AVX2.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/transform/arcsinh.h"

namespace sepal {
namespace {

// Doubles between a and b (same sign, finite): 0 for equal values.
int64_t ulpsApart(double a, double b) {
    const int64_t x = std::bit_cast<int64_t>(a), y = std::bit_cast<int64_t>(b);
    return x > y ? x - y : y - x;
}

// Values of every magnitude and both signs, the edges of each form, and what a cytometer
// records: integers and values around a cofactor.
std::vector<double> testValues() {
    std::vector<double> v = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             2.0,
                             -2.0,
                             0x1p-28,
                             0x1p28,
                             5.0,
                             150.0,
                             1e-300,
                             4.9e-324,
                             -4.9e-324,
                             1e300,
                             -1e300,
                             0x1.fffffffffffffp1023,
                             0x1.fffffffffffffp-29,
                             0x1.0000000000001p28,
                             0x1.fffffffffffffp0,
                             1.4142135623730951};
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-330.0, 308.0), unit(-1.0, 1.0);
    for (int i = 0; i < 200000; ++i) v.push_back(unit(rng) * std::pow(10.0, exponent(rng)));
    std::uniform_real_distribution<double> near(-8.0, 8.0);
    for (int i = 0; i < 200000; ++i) v.push_back(near(rng));
    for (int i = -2000; i < 300000; i += 3) v.push_back(double(i));
    return v;
}

TEST(Arcsinh, WithinTwoUlpOfTheCLibraryOnEveryScale) {
    const std::vector<double> values = testValues();
    std::vector<double> ours = values;
    arcsinhInPlace(ours.data(), ours.size(), 1.0);
    int64_t worst = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        const double expected = std::asinh(values[i]);
        ASSERT_EQ(std::signbit(ours[i]), std::signbit(expected)) << values[i];
        const int64_t apart = ulpsApart(ours[i], expected);
        worst = std::max(worst, apart);
        ASSERT_LE(apart, 2) << std::hexfloat << values[i] << ": " << ours[i] << " against "
                            << expected;
    }
    EXPECT_LE(worst, 2);
}

TEST(Arcsinh, NonFiniteValuesStayWhatTheyAre) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> v = {std::nan(""), inf, -inf, -std::nan("")};
    arcsinhInPlace(v.data(), v.size(), 5.0);
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], inf);
    EXPECT_EQ(v[2], -inf);
    EXPECT_TRUE(std::isnan(v[3]));
    EXPECT_TRUE(std::isnan(arcsinh(std::nan(""))));
}

TEST(Arcsinh, TransformedFloatsAreTheCLibrarys) {
    // What the pipeline keeps: float(asinh(x / cofactor)). A float differs only where the exact
    // value lies within 2 ulp of double of a rounding boundary.
    const std::vector<double> values = testValues();
    for (const double cofactor : {5.0, 150.0}) {
        std::vector<double> ours = values;
        arcsinhInPlace(ours.data(), ours.size(), cofactor);
        size_t differ = 0;
        for (size_t i = 0; i < values.size(); ++i)
            differ += float(ours[i]) != float(std::asinh(values[i] / cofactor));
        EXPECT_LE(differ, 1u) << "cofactor " << cofactor << ", of " << values.size();
    }
}

TEST(Arcsinh, AvxAndPortablePassesGiveTheSameBits) {
    const std::vector<double> values = testValues();
    std::vector<double> a = values, b = values;
    arcsinhInPlace(a.data(), a.size(), 5.0);
    arcsinhInPlacePortable(b.data(), b.size(), 5.0);
    for (size_t i = 0; i < values.size(); ++i) {
        ASSERT_EQ(std::bit_cast<uint64_t>(a[i]), std::bit_cast<uint64_t>(b[i])) << values[i];
        ASSERT_EQ(std::bit_cast<uint64_t>(a[i]), std::bit_cast<uint64_t>(arcsinh(values[i] / 5.0)));
    }
}

}  // namespace
}  // namespace sepal
