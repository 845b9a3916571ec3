#pragma once
// The training step's new landmarks from the per-landmark sums: the k-means division, or the
// batch SOM's smoothing over the map and its division. Device pointers; checked, asynchronous.

#include <cuda_runtime_api.h>

namespace sepal::cuda {

/// The new landmarks from the sums (device pointers).
struct LandmarkUpdateArgs {
    const double* sums = nullptr;                ///< g x d
    const unsigned long long* counts = nullptr;  ///< g
    const float* weights = nullptr;  ///< g x g batch-SOM neighbourhood, or null (k-means)
    const float* old = nullptr;      ///< g x d: the landmarks of the step
    int g = 0;                       ///< landmarks
    int d = 0;                       ///< dimensions
    float* landmarks = nullptr;      ///< g x d: the new landmarks
    double* denominators = nullptr;  ///< g: the weight behind each new landmark
};

/// landmark_j = sum_c h(j, c) sums_c / sum_c h(j, c) counts_c (h the identity without
/// weights); a landmark whose denominator is not positive keeps its place.
void launchLandmarkUpdate(const LandmarkUpdateArgs& args, cudaStream_t stream);

}  // namespace sepal::cuda
