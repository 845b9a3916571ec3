#pragma once
// The training step's bounds as a search stores them (device code; step_bounds.cu says why
// these roundings keep a kept cell's landmark exact).

#include <cfloat>
#include <cmath>

namespace sepal::cuda::detail {

/// The root of d subnormal squares: the distances' absolute rounding near 0.
constexpr float kBoundTiny = 4e-18f;

/// An upper bound on the real distance of a cell whose exact squared distance (the CPU's
/// arithmetic) is `squared`.
__device__ __forceinline__ float upperBoundOf(float squared) {
    return sqrtf(squared) * (1.0f + 0x1p-16f) + kBoundTiny;
}

/// A lower bound on the real distance from a lower bound on the exact squared distance
/// (+infinity stays: the mark of a skipped cell).
__device__ __forceinline__ float lowerBoundOf(float squared) {
    return squared == INFINITY ? INFINITY
                               : fmaxf(0.0f, sqrtf(squared) * (1.0f - 0x1p-16f) - kBoundTiny);
}

}  // namespace sepal::cuda::detail
