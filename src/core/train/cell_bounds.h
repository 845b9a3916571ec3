#pragma once
// The arithmetic of the training step's cell bounds (Hamerly's k-means bounds): what a search
// stores for a cell and how a step moves it, shared by the CUDA keep-or-list pass
// (cuda/step_bounds.cu, as device code) and the CPU tests of its soundness. Every bound is a
// distance (not squared: the triangle inequality adds distances) and is rounded outwards, so that
// a kept cell's landmark is the one an exact search would find, ties to the lower index included:
// - a search stores upper = sqrt(D) (1 + 2^-16) + tiny and lower = sqrt(B) (1 - 2^-16) - tiny,
//   D the exact squared distance in the CPU's arithmetic (within (d + 3) 2^-24 of the real one
//   relative, d <= 64), or an upper bound on it, and B a lower bound on every other landmark's D;
// - a step grows upper by the landmark's own move and shrinks lower by the largest move of the
//   others, each result taken 2^-20 outwards (a float addition rounds by 2^-24 of its result;
//   the subtraction is exact where the two are within a factor of 2, Sterbenz);
// - a cell keeps its landmark only when upper < lower: its real distance to its landmark is then
//   below the real distance to any other by more than 2^-16 relative (2^-15 fresh from a search;
//   each kept step's roundings take a few 2^-23 of the lower side's share), where the CPU's
//   rounded distances need 67 2^-24 (d 64): they keep the same order, strictly (no tie).
// The tiny term (4e-18, the root of d subnormal squares) covers distances near 0.

#include <cmath>

#if defined(__CUDACC__)
#define SEPAL_CELL_BOUNDS_FN __host__ __device__ __forceinline__
#else
#define SEPAL_CELL_BOUNDS_FN inline
#endif

namespace sepal::cell_bounds {

/// The root of d subnormal squares: the distances' absolute rounding near 0.
constexpr float kTiny = 4e-18f;

/// An upper bound on the real distance of a cell whose exact squared distance (the CPU's
/// arithmetic) is `squared`.
SEPAL_CELL_BOUNDS_FN float upperOf(float squared) {
    return sqrtf(squared) * (1.0f + 0x1p-16f) + kTiny;
}

/// A lower bound on the real distance from a lower bound on the exact squared distance
/// (+infinity stays: the mark of a skipped cell).
SEPAL_CELL_BOUNDS_FN float lowerOf(float squared) {
    return squared == INFINITY ? INFINITY : fmaxf(0.0f, sqrtf(squared) * (1.0f - 0x1p-16f) - kTiny);
}

/// One step of a cell's bounds: its landmark moved by `ownMove`, every other landmark by at most
/// `otherMove` (both rounded up). True when the cell keeps its landmark; then upper and lower
/// hold for the moved landmarks (else they are left as they were).
SEPAL_CELL_BOUNDS_FN bool keepsLandmark(float& upper, float& lower, float ownMove,
                                        float otherMove) {
    const float grown = (upper + ownMove) * (1.0f + 0x1p-20f);
    const float shrunk = (lower - otherMove) * (1.0f - 0x1p-20f);
    if (!(grown < shrunk)) return false;
    upper = grown;
    lower = shrunk;
    return true;
}

}  // namespace sepal::cell_bounds

#undef SEPAL_CELL_BOUNDS_FN
