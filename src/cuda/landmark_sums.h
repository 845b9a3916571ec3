#pragma once
// The training step's sums of every landmark's points, after the nearest-landmark search. All
// pointers are device pointers; the launch is checked and asynchronous.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sepal::cuda {

/// What the sums read and write (device pointers). The outputs must be zero before the launch.
struct LandmarkSumArgs {
    const float* points = nullptr;  ///< n x stride, padded with zeros beyond d
    size_t n = 0;                   ///< points
    int d = 0;                      ///< dimensions that hold data
    int stride = 0;                 ///< paddedDim(d)
    int g = 0;                      ///< landmarks
    /// n: each point's nearest landmark; set to kSkippedPoint for the points the sums skip
    /// (a non-finite coordinate, or an index >= g from a search whose distances overflowed).
    uint32_t* assign = nullptr;
    /// n: squared distance to the nearest landmark; negative where the training step's bounds
    /// kept the landmark, or the nearest pass took a lone candidate, without measuring it (then
    /// `landmarks` must be set for the inertia).
    const float* dist = nullptr;
    /// g x stride, may be null: the landmarks, for the distances the passes measure themselves
    /// (a negative dist; in the sorted sums' tree order, not the CPU's dimension order).
    const float* landmarks = nullptr;
    double* sums = nullptr;                ///< g x d: += the coordinates of the points
    unsigned long long* counts = nullptr;  ///< g: += the points
    double* inertia = nullptr;  ///< [0] += the squared distances (finite ones) of the points added
    unsigned long long* skipped = nullptr;  ///< [0] += the skipped points
};

/// Shared memory the sums need to accumulate a block's points in shared memory.
size_t landmarkSumsSharedBytes(int g, int stride);
/// Whether the current device lets a block hold the sums in shared memory (else: global atomics).
bool landmarkSumsFitShared(int g, int stride);
/// Adds every point to its landmark's sums (in shared memory per block when they fit).
void launchLandmarkSums(const LandmarkSumArgs& args, cudaStream_t stream);
/// Whether the sorted sums (sorted_sums.cu: each block's points grouped by landmark before they
/// are added) take this shape on the current device: stride 32, 64 or 128, the sums in shared
/// memory.
bool sortedSumsFit(int g, int stride);
/// As launchLandmarkSums, each block's points grouped by landmark first; throws InputError
/// where sortedSumsFit does not hold. blocks: the most blocks (0: as many as the device holds;
/// tests take one, so that a block goes through several spans and batches).
void launchSortedLandmarkSums(const LandmarkSumArgs& args, cudaStream_t stream, int blocks = 0);

}  // namespace sepal::cuda
