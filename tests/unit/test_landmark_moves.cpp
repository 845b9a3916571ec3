// The landmarks' moves behind the CUDA training step's bounds: never below the real distance
// (a bound built on a move rounded down could keep a cell on the wrong landmark), close above
// it, exactly zero for a landmark that stayed, and the two largest moves told apart.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/train/landmark_moves.h"

namespace sepal {
namespace {

TEST(LandmarkMoves, NeverBelowTheRealDistanceAndCloseAboveIt) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> scale(-30.0f, 30.0f);
    const size_t g = 500, d = 37;
    std::vector<float> before(g * d), after(g * d);
    for (size_t j = 0; j < g; ++j) {
        // Moves from 2^-30 to 2^30 of coordinates from 2^-30 to 2^30.
        const float size = std::ldexp(1.0f, int(scale(rng))),
                    step = std::ldexp(1.0f, int(scale(rng)));
        for (size_t t = 0; t < d; ++t) {
            before[j * d + t] = normal(rng) * size;
            after[j * d + t] = before[j * d + t] + normal(rng) * step;
        }
    }
    const LandmarkMoves m = landmarkMoves(before.data(), after.data(), g, d);
    ASSERT_EQ(m.moves.size(), g);
    for (size_t j = 0; j < g; ++j) {
        long double sum = 0;
        for (size_t t = 0; t < d; ++t) {
            const long double e = (long double)after[j * d + t] - (long double)before[j * d + t];
            sum += e * e;
        }
        const long double exact = std::sqrt(sum);
        EXPECT_GE((long double)m.moves[j], exact) << "landmark " << j;
        EXPECT_LE((long double)m.moves[j], exact * (1 + 1e-6L)) << "landmark " << j;
    }
}

TEST(LandmarkMoves, ALandmarkThatStaysHasNoMoveAndTheLargestTwoAreKept) {
    const size_t g = 4, d = 2;
    const std::vector<float> before = {0, 0, 1, 1, 2, 2, 3, 3};
    const std::vector<float> after = {0, 0, 1, 4, 2, 2, 3, 3.5f};  // 3 and 0.5
    const LandmarkMoves m = landmarkMoves(before.data(), after.data(), g, d);
    EXPECT_EQ(m.moves[0], 0.0f);
    EXPECT_EQ(m.moves[2], 0.0f);
    EXPECT_EQ(m.largestAt, 1u);
    EXPECT_GE(m.largest, 3.0f);
    EXPECT_LT(m.largest, 3.0f * (1 + 1e-6f));
    EXPECT_GE(m.second, 0.5f);
    EXPECT_LT(m.second, 0.5f * (1 + 1e-6f));
    // One landmark: nothing else moved.
    const LandmarkMoves one = landmarkMoves(before.data(), after.data() + 2, 1, d);
    EXPECT_EQ(one.largestAt, 0u);
    EXPECT_EQ(one.second, 0.0f);
}

TEST(LandmarkMoves, AMovePastTheFloatRangeIsInfinite) {
    const std::vector<float> before = {-3e38f, 0}, after = {3e38f, 0};
    const LandmarkMoves m = landmarkMoves(before.data(), after.data(), 1, 2);
    EXPECT_TRUE(std::isinf(m.moves[0]));
}

}  // namespace
}  // namespace sepal
