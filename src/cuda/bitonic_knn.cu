// The bitonic k-NN baseline, written from the published GPU EmbedSOM design's description.
//
// Decomposition: a group of T = KP/2 threads per point, where KP is topnn rounded up to a power of
// two; 256/T points (at least one) per block. Shared memory holds 2*KP (distance, index) pairs per
// point: the KP best so far (sorted) and a batch of KP new candidates. Each round every thread
// computes 2 distances (difference form, landmarks and the point read through the cache), the
// batch is bitonic-sorted, merged with the best list (min of best[i] and batch[KP-1-i] gives a
// bitonic sequence of the KP smallest) and the result bitonic-merged back into order.
// Comparisons are on (distance, index), so ties are ordered by index.
// Shared memory: 16 * KP bytes per point (16 KB at KP = 1024). Limits: topnn <= 1024; any d.

#include <cfloat>
#include <climits>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda {
namespace {

__device__ __forceinline__ bool before(float2 a, float2 b) {
    return a.x < b.x || (a.x == b.x && __float_as_int(a.y) < __float_as_int(b.y));
}

__device__ __forceinline__ void compareSwap(float2* v, int i, int j, bool ascending) {
    const float2 x = v[i], y = v[j];
    if (before(y, x) == ascending) {
        v[i] = y;
        v[j] = x;
    }
}

__global__ void bitonicKnnKernel(const ProjectionArgs a, int kp) {
    extern __shared__ float2 pool[];
    const int half = kp / 2;
    const int group = threadIdx.x / half;
    const int lt = threadIdx.x % half;
    const int perBlock = blockDim.x / half;
    const size_t p = size_t(blockIdx.x) * perBlock + group;
    const bool active = p < a.n;
    float2* best = pool + size_t(group) * 2 * kp;
    float2* batch = best + kp;
    const float2 none = make_float2(FLT_MAX, __int_as_float(INT_MAX));
    best[lt] = none;
    best[lt + half] = none;

    const float4* x = reinterpret_cast<const float4*>(a.points) + (active ? p : 0) * (a.stride / 4);
    const float4* landmarks = reinterpret_cast<const float4*>(a.landmarks);
    for (int b0 = 0; b0 < a.g; b0 += kp) {
        for (int q = lt; q < kp; q += half) {
            const int j = b0 + q;
            float2 c = none;
            if (j < a.g) {
                const float4* l = landmarks + size_t(j) * (a.stride / 4);
                float acc = 0;
                bool bad = false;
                for (int t = 0; t < a.stride / 4; ++t) {
                    const float4 xv = x[t], lv = l[t];
                    float e = detail::finiteOrZero(xv.x, bad) - lv.x;
                    acc = detail::addSquare(acc, e);
                    e = detail::finiteOrZero(xv.y, bad) - lv.y;
                    acc = detail::addSquare(acc, e);
                    e = detail::finiteOrZero(xv.z, bad) - lv.z;
                    acc = detail::addSquare(acc, e);
                    e = detail::finiteOrZero(xv.w, bad) - lv.w;
                    acc = detail::addSquare(acc, e);
                }
                c = make_float2(acc, __int_as_float(j));
            }
            batch[q] = c;
        }
        __syncthreads();
        for (int size = 2; size <= kp; size <<= 1) {
            for (int stride = size / 2; stride > 0; stride >>= 1) {
                const int i = 2 * stride * (lt / stride) + lt % stride;
                compareSwap(batch, i, i + stride, (i & size) == 0);
                __syncthreads();
            }
        }
        for (int q = lt; q < kp; q += half) {
            const float2 mine = best[q], other = batch[kp - 1 - q];
            best[q] = before(other, mine) ? other : mine;
        }
        __syncthreads();
        for (int stride = kp / 2; stride > 0; stride >>= 1) {
            const int i = 2 * stride * (lt / stride) + lt % stride;
            compareSwap(best, i, i + stride, true);
            __syncthreads();
        }
    }
    if (!active) return;
    for (int q = lt; q < a.kOut; q += half) {
        a.knnIdx[p * a.kOut + q] = uint32_t(__float_as_int(best[q].y));
        a.knnDist[p * a.kOut + q] = best[q].x;
    }
}

}  // namespace

void launchBitonicKnn(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    int kp = 2;
    while (kp < a.kOut) kp <<= 1;
    const int half = kp / 2;
    const int perBlock = half >= 256 ? 1 : 256 / half;
    const size_t bytes = size_t(perBlock) * 2 * kp * sizeof(float2);
    const unsigned blocks = unsigned((a.n + perBlock - 1) / perBlock);
    bitonicKnnKernel<<<blocks, perBlock * half, bytes, stream>>>(a, kp);
    SEPAL_CUDA_CHECK_LAUNCH("bitonicKnnKernel");
}

}  // namespace sepal::cuda
