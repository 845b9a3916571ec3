// The training step's bounds: the keep-or-list pass, the gather of the listed cells' rows and the
// scatter of their search. The bounds' arithmetic, and why a kept cell's landmark is the one an
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

__global__ void __launch_bounds__(kThreads) keepOrListKernel(const KeepOrListArgs a) {
    __shared__ unsigned warpCounts[kWarps], warpKept[kWarps];
    __shared__ unsigned long long blockBase;
    __shared__ bool full;
    // Past the list's room the step searches every cell: the rest of the pass is not needed.
    // (A relaxed read, once for the whole block: a block that misses a recent count still
    // lists correctly.)
    if (threadIdx.x == 0)
        full = *reinterpret_cast<volatile unsigned long long*>(a.counts) > a.capacity;
    __syncthreads();
    if (full) return;
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
        if (at < a.capacity) a.list[at] = uint32_t(p);
    }
}

__global__ void gatherRowsKernel(const float4* points, int vecs, const uint32_t* list, size_t count,
                                 float4* rows) {
    const size_t e = size_t(blockIdx.x) * kThreads + threadIdx.x;
    if (e >= count * size_t(vecs)) return;
    const size_t i = e / size_t(vecs), c = e - i * size_t(vecs);
    rows[e] = points[size_t(list[i]) * size_t(vecs) + c];
}

__global__ void scatterSearchKernel(const ScatterArgs a) {
    const size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x;
    if (i >= a.count) return;
    const size_t p = a.list[i];
    a.assign[p] = a.fromAssign[i];
    a.dist[p] = a.fromDist[i];
    a.upper[p] = a.fromUpper[i];
    a.lower[p] = a.fromLower[i];
}

}  // namespace

void launchKeepOrList(const KeepOrListArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    keepOrListKernel<<<blocksFor(a.n), kThreads, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("keepOrListKernel");
}

void launchGatherRows(const float* points, int stride, const uint32_t* list, size_t count,
                      float* rows, cudaStream_t stream) {
    if (count == 0) return;
    const int vecs = stride / 4;
    gatherRowsKernel<<<blocksFor(count * size_t(vecs)), kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(points), vecs, list, count,
        reinterpret_cast<float4*>(rows));
    SEPAL_CUDA_CHECK_LAUNCH("gatherRowsKernel");
}

void launchScatterSearch(const ScatterArgs& a, cudaStream_t stream) {
    if (a.count == 0) return;
    scatterSearchKernel<<<blocksFor(a.count), kThreads, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("scatterSearchKernel");
}

}  // namespace sepal::cuda
