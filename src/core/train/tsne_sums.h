#pragma once
// The exact t-SNE gradient's sums for one landmark over every landmark, the layout's hot loop:
// eight lanes (landmark j in lane j mod 8) combined in a fixed order, so that the AVX2 pass and
// the portable one give the same bits on every machine.

#include <cstddef>

namespace sepal {

/// One landmark i's sums over every landmark j (i included) of w = 1 / (1 + |y_i - y_j|^2).
struct TsneRowSums {
    float attractX = 0, attractY = 0;  ///< sum_j p_ij w (y_i - y_j)
    float repelX = 0, repelY = 0;      ///< sum_j w^2 (y_i - y_j)
    float w = 0;                       ///< sum_j w (1 for j = i included)
};

/// The sums for the landmark at (x, y): xs, ys hold every landmark's position, p its row of the
/// joint probabilities (g values each). AVX2 when the CPU has it; the same result either way.
TsneRowSums tsneRowSums(const float* xs, const float* ys, const float* p, size_t g, float x,
                        float y);
/// tsneRowSums without AVX2, whatever the CPU (what tests compare it with).
TsneRowSums tsneRowSumsPortable(const float* xs, const float* ys, const float* p, size_t g, float x,
                                float y);

}  // namespace sepal
