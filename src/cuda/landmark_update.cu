// The training step's new landmarks: the k-means division of each landmark's sums by its count,
// or the batch SOM's neighbourhood-weighted sums over every winner, then the division.
//
// Decomposition: one block of kUpdateWarps warps per landmark j. With a neighbourhood, the warps
// split the winners c (warp w takes c = w, w + 8, ...) and the lanes the dimensions (32 at a
// time), in double as the CPU trainer sums; the block adds the warps' partial sums. Winners with
// no points or a weight <= 0 are left out, as on the CPU. O(g^2 d) work: 3.4e7 multiply-adds at
// g = 1024, d = 32, next to nothing beside the sums over every point.

#include "cuda/cuda_error.h"
#include "cuda/landmark_update.h"

namespace sepal::cuda {
namespace {

constexpr int kUpdateWarps = 8;

__global__ void __launch_bounds__(32 * kUpdateWarps)
    landmarkUpdateKernel(const LandmarkUpdateArgs a) {
    __shared__ double partial[kUpdateWarps][32];
    __shared__ double denominator;
    const int j = blockIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const float* h = a.weights ? a.weights + size_t(j) * a.g : nullptr;

    double den = 0;
    if (h) {
        for (int c = threadIdx.x; c < a.g; c += blockDim.x)
            if (a.counts[c] > 0 && h[c] > 0.0f) den += double(h[c]) * double(a.counts[c]);
    } else if (threadIdx.x == 0) {
        den = double(a.counts[j]);
    }
    for (int o = 16; o > 0; o >>= 1) den += __shfl_down_sync(0xffffffffu, den, o);
    if (lane == 0) partial[warp][0] = den;
    __syncthreads();
    if (threadIdx.x == 0) {
        double total = 0;
        for (int w = 0; w < kUpdateWarps; ++w) total += partial[w][0];
        denominator = total;
        a.denominators[j] = total;
    }
    __syncthreads();
    const double total = denominator;

    for (int t0 = 0; t0 < a.d; t0 += 32) {
        const int t = t0 + lane;
        double num = 0;
        if (t < a.d) {
            if (h) {
                for (int c = warp; c < a.g; c += kUpdateWarps) {
                    const float w = h[c];
                    if (w > 0.0f && a.counts[c] > 0) num += double(w) * a.sums[size_t(c) * a.d + t];
                }
            } else if (warp == 0) {
                num = a.sums[size_t(j) * a.d + t];
            }
        }
        partial[warp][lane] = num;
        __syncthreads();
        if (warp == 0 && t < a.d) {
            double sum = 0;
            for (int w = 0; w < kUpdateWarps; ++w) sum += partial[w][lane];
            const size_t e = size_t(j) * a.d + t;
            a.landmarks[e] = total > 0.0 ? float(sum / total) : a.old[e];
        }
        __syncthreads();
    }
}

}  // namespace

void launchLandmarkUpdate(const LandmarkUpdateArgs& a, cudaStream_t stream) {
    if (a.g == 0) return;
    landmarkUpdateKernel<<<unsigned(a.g), 32 * kUpdateWarps, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("landmarkUpdateKernel");
}

}  // namespace sepal::cuda
