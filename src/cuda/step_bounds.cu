// The training step's bounds: the keep-or-list pass (the listed cells go to the nearest kernel,
// NearestArgs::cells). The bounds' arithmetic, and why a kept cell's landmark is the one an
// exact search would find, ties included, is core/train/cell_bounds.h's.

#include <cfloat>
#include <cmath>

#include "core/train/cell_bounds.h"
#include "cuda/cuda_error.h"
#include "cuda/step_bounds.h"
#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

/// Blocks for `count` items at kThreads a block (at least one).
unsigned blocksFor(size_t count) {
    const size_t blocks = (count + kThreads - 1) / kThreads;
    return unsigned(blocks > 0 ? blocks : 1);
}

/// Cell p's squared distance to landmark j (the padding's zeros add nothing): within
/// (d + 3) 2^-24 of the real one relative, in any order of the sum, as upperOf assumes.
__device__ float squaredDistance(const KeepOrListArgs& a, size_t p, uint32_t j) {
    const float4* x = reinterpret_cast<const float4*>(a.points + p * size_t(a.stride));
    const float4* l = reinterpret_cast<const float4*>(a.landmarks + size_t(j) * size_t(a.stride));
    float sum = 0.0f;
    for (int q = 0; q < a.stride / 4; ++q) {
        const float4 u = __ldg(x + q), v = __ldg(l + q);
        const float e0 = u.x - v.x, e1 = u.y - v.y, e2 = u.z - v.z, e3 = u.w - v.w;
        sum = fmaf(e0, e0, sum);
        sum = fmaf(e1, e1, sum);
        sum = fmaf(e2, e2, sum);
        sum = fmaf(e3, e3, sum);
    }
    return sum;
}

__global__ void __launch_bounds__(kThreads) keepOrListKernel(const KeepOrListArgs a) {
    __shared__ unsigned warpCounts[kWarps], warpKept[kWarps];
    __shared__ unsigned long long blockBase;
    const size_t p = size_t(blockIdx.x) * kThreads + threadIdx.x;
    bool search = false, kept = false;
    if (p < a.n) {
        const uint32_t j = a.assign[p];
        const float lower = a.lower[p];
        if (lower == INFINITY) {
            // A non-finite cell: skipped now as it was then.
        } else if (j < uint32_t(a.g)) {
            float upper = a.upper[p], below = lower;
            const float others = int(j) == a.largestAt ? a.second : a.largest;
            if (cell_bounds::keepsLandmark(upper, below, a.moves[j], others)) {
                a.upper[p] = upper;
                a.lower[p] = below;
                a.dist[p] = -1.0f;
                kept = true;
            } else if (a.points) {
                // Hamerly's second test: the grown upper bound failed, the distance itself may
                // not (one row read, where the search would compare it with every landmark).
                const float squared = squaredDistance(a, p, j);
                float tight = cell_bounds::upperOf(squared);
                below = lower;
                if (cell_bounds::keepsLandmark(tight, below, 0.0f, others)) {
                    a.upper[p] = tight;
                    a.lower[p] = below;
                    a.dist[p] = squared;
                    kept = true;
                } else {
                    search = true;
                }
            } else {
                search = true;
            }
        } else {
            search = true;  // no landmark within float's range last time: search again
        }
    }
    // The block's listed cells take one range of the list: one global atomic a block (and one
    // for its kept cells).
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned mask = __ballot_sync(0xffffffffu, search);
    const unsigned keptMask = __ballot_sync(0xffffffffu, kept);
    if (lane == 0) warpCounts[warp] = __popc(mask), warpKept[warp] = __popc(keptMask);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0, keptTotal = 0;
        for (int w = 0; w < kWarps; ++w) {
            const unsigned c = warpCounts[w];
            warpCounts[w] = total;
            total += c;
            keptTotal += warpKept[w];
        }
        blockBase = total > 0 ? atomicAdd(a.counts, (unsigned long long)total) : 0;
        if (keptTotal > 0) atomicAdd(a.counts + 1, (unsigned long long)keptTotal);
    }
    __syncthreads();
    if (search) {
        const size_t at =
            size_t(blockBase) + warpCounts[warp] + size_t(__popc(mask & ((1u << lane) - 1u)));
        a.list[at] = uint32_t(p);
    }
}

}  // namespace

void launchKeepOrList(const KeepOrListArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    keepOrListKernel<<<blocksFor(a.n), kThreads, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("keepOrListKernel");
}

}  // namespace sepal::cuda
