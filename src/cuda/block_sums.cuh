#pragma once
// Device helpers shared by the training step's sums passes (landmark_sums.cu, sorted_sums.cu):
// a block's shared float sums into the global double sums, and its threads' inertia and skipped
// counts into the global totals.

#include <cstddef>

#include "cuda/landmark_sums.h"

namespace sepal::cuda::detail {

/// The block's shared sums (g rows, rowLd floats apart) and counts into the global sums: one
/// double atomic per landmark with points and dimension. The whole block calls it; the caller
/// clears the shared sums only after a barrier (every thread has read them).
__device__ __forceinline__ void flushBlockSums(const LandmarkSumArgs& a, const float* rows,
                                               int rowLd, const unsigned* counts) {
    for (size_t e = threadIdx.x; e < size_t(a.g) * a.d; e += blockDim.x) {
        const size_t j = e / a.d, t = e % a.d;
        if (counts[j] > 0) atomicAdd(a.sums + e, double(rows[j * rowLd + t]));
    }
    for (int j = threadIdx.x; j < a.g; j += blockDim.x)
        if (counts[j] > 0) atomicAdd(a.counts + j, (unsigned long long)counts[j]);
}

/// Each warp's inertia and skipped points into the global totals (every thread calls it once).
__device__ __forceinline__ void addBlockTotals(const LandmarkSumArgs& a, double inertia,
                                               unsigned long long skipped) {
    for (int o = 16; o > 0; o >>= 1) {
        inertia += __shfl_down_sync(0xffffffffu, inertia, o);
        skipped += __shfl_down_sync(0xffffffffu, skipped, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (inertia != 0.0) atomicAdd(a.inertia, inertia);
        if (skipped != 0) atomicAdd(a.skipped, skipped);
    }
}

}  // namespace sepal::cuda::detail
