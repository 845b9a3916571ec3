// The queue of ill-conditioned cells that the table and list projections share: a cell whose
// 2x2 system is too ill-conditioned for the fast path's roundings is queued by its projection
// and placed afterwards the reference's way. Solved inline, one such cell held its whole warp
// (32 cells, or the list projection's one) for the reference's O(k^2 d) steps; at 10^8 cells
// that cost a drag frame three times its projection.
// solveDeferredWarpKernel places a queued cell a warp at a time: the app's default recipe
// (smooth -2, adjust 3) leaves about 4 % of the cells ill-conditioned, and one thread a cell
// (solveDeferredKernel, kept for comparisons: SEPAL_DEFERRED_WARP=0) ran their O(k^2) pairs of
// double exponentials and powers one after another on a few warps a multiprocessor.

#include <cstdlib>
#include <string>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kPairChunk = 128;  // pairs whose terms a warp holds at once (4 a lane)

/// The queued cells placed as referenceWhereIllConditioned would have placed them inline: the
/// same function of the same lists, so the positions are the same bit for bit.
__global__ void solveDeferredKernel(const ProjectionArgs a) {
    const unsigned long long queued = *a.deferredCount;
    const size_t count = queued < a.deferredCapacity ? size_t(queued) : a.deferredCapacity;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += size_t(gridDim.x) * blockDim.x) {
        const size_t p = a.deferred[i];
        const float2 r =
            detail::solveLikeReference(a.points + p * a.stride, a.landmarks, a.low, a.stride,
                                       a.topn, a.topnn, a.boost, a.adjust, a.knnDist + p * a.kOut,
                                       1, reinterpret_cast<const int*>(a.knnIdx + p * a.kOut));
        if (isfinite(r.x)) reinterpret_cast<float2*>(a.out)[p] = r;
    }
}

/// Pair e of the list's (i, j) enumeration, i < j < topn, row by row (solveLikeReference's
/// order).
__device__ __forceinline__ void pairOf(int e, int topn, int& i, int& j) {
    int row = 0, start = 0;
    while (e >= start + (topn - 1 - row)) start += topn - 1 - row++;
    i = row;
    j = row + 1 + e - start;
}

/// The queued cells, a warp each, with solveLikeReference's operations and order: the scores
/// once a list entry a lane (the serial form computes each again per pair, the same way, so
/// to the same bits), each pair's five terms a pair a lane (referencePairTerms, which the
/// serial form calls too), then lane s of the first five adds
/// sum s's terms (a00, a01, a11, b0, b1) in the pairs' order, leaving out those the serial form
/// skips: five sums that never mix, each in its serial order.
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    solveDeferredWarpKernel(const ProjectionArgs a) {
    __shared__ float scores[kWarpsPerBlock][kListMaxList];
    __shared__ float terms[kWarpsPerBlock][5][kPairChunk];
    __shared__ bool added[kWarpsPerBlock][kPairChunk];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned long long queued = *a.deferredCount;
    const size_t count = queued < a.deferredCapacity ? size_t(queued) : a.deferredCapacity;
    const int topn = a.topn, stride = a.stride;
    const bool normalise = topn < a.topnn;
    const int pairs = topn * (topn - 1) / 2;
    float* score = scores[warp];
    for (size_t c = size_t(blockIdx.x) * kWarpsPerBlock + warp; c < count;
         c += size_t(gridDim.x) * kWarpsPerBlock) {
        const size_t p = a.deferred[c];
        const float* x = a.points + p * stride;
        const float* dist = a.knnDist + p * a.kOut;
        const int* idx = reinterpret_cast<const int*>(a.knnIdx + p * a.kOut);
        const detail::ScoreMoments m =
            detail::scoreMoments<0>([&](int i) { return dist[i]; }, topn, a.topnn, a.boost);
        if (!m.ok) continue;  // the serial form fails too: the fast path's position stays
        for (int i = lane; i < topn; i += 32)
            score[i] = detail::scoreOf<true>(m, sqrtf(dist[i]), normalise);
        __syncwarp();
        // Lane s < 5 holds sum s; the gravity terms first (a01 has none).
        float sum = 0;
        if (lane < 5 && lane != 1) {
            for (int i = 0; i < topn; ++i) {
                const float gs = __fmul_rn(score[i], 1e-5f);
                const int u = idx[i];
                sum = __fadd_rn(sum, lane < 3 ? gs : __fmul_rn(gs, a.low[2 * u + (lane - 3)]));
            }
        }
        for (int first = 0; first < pairs; first += kPairChunk) {
            for (int slot = lane; slot < kPairChunk && first + slot < pairs; slot += 32) {
                int i, j;
                pairOf(first + slot, topn, i, j);
                float t[5] = {0, 0, 0, 0, 0};
                const bool use = detail::referencePairTerms(
                    x, a.landmarks, a.low, stride, idx[i], idx[j], score[i],
                    [&] { return score[j]; }, a.adjust, t);
#pragma unroll
                for (int k = 0; k < 5; ++k) terms[warp][k][slot] = t[k];
                added[warp][slot] = use;
            }
            __syncwarp();
            if (lane < 5) {
                const int inChunk = min(kPairChunk, pairs - first);
                for (int slot = 0; slot < inChunk; ++slot)
                    if (added[warp][slot]) sum = __fadd_rn(sum, terms[warp][lane][slot]);
            }
            __syncwarp();  // the next chunk's terms go where these were
        }
        const float a00 = __shfl_sync(0xffffffffu, sum, 0), a01 = __shfl_sync(0xffffffffu, sum, 1);
        const float a11 = __shfl_sync(0xffffffffu, sum, 2), b0 = __shfl_sync(0xffffffffu, sum, 3);
        const float b1 = __shfl_sync(0xffffffffu, sum, 4);
        if (lane == 0) {
            const float det = __fsub_rn(__fmul_rn(a00, a11), __fmul_rn(a01, a01));
            const float2 y =
                make_float2(__fdiv_rn(__fsub_rn(__fmul_rn(b0, a11), __fmul_rn(b1, a01)), det),
                            __fdiv_rn(__fsub_rn(__fmul_rn(a00, b1), __fmul_rn(a01, b0)), det));
            if (isfinite(y.x) && isfinite(y.y)) reinterpret_cast<float2*>(a.out)[p] = y;
        }
        __syncwarp();  // the scores are written again for the next cell
    }
}

/// False when SEPAL_DEFERRED_WARP=0 asks for a thread a queued cell, for comparisons. Read at
/// every launch, not cached: a test switches it between projections.
bool warpPerCell() {
    const char* v = std::getenv("SEPAL_DEFERRED_WARP");
    return !(v && std::string(v) == "0");
}

}  // namespace

void beginDeferredSolves(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.deferred)
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.deferredCount, 0, sizeof(unsigned long long), stream));
}

void finishDeferredSolves(const ProjectionArgs& a, cudaStream_t stream) {
    if (!a.deferred) return;
    // The queue's length is on the device: a grid of the blocks that fit at once on the
    // launch's multiprocessors, whose warps without a cell exit at once.
    if (warpPerCell()) {
        static const int blocksPerSm = [] {
            int blocks = 0;
            SEPAL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, solveDeferredWarpKernel, 32 * kWarpsPerBlock, 0));
            return blocks > 0 ? blocks : 1;
        }();
        const unsigned blocks = unsigned(blocksPerSm * detail::multiprocessorsFor(a));
        solveDeferredWarpKernel<<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(a);
        SEPAL_CUDA_CHECK_LAUNCH("solveDeferredWarpKernel");
    } else {
        solveDeferredKernel<<<512, 128, 0, stream>>>(a);
        SEPAL_CUDA_CHECK_LAUNCH("solveDeferredKernel");
    }
}

}  // namespace sepal::cuda
