#pragma once
// What the kernels over split FP16 fragments share (the k-NN graph's candidates and the
// trustworthiness ranks): the split of a value into two FP16 parts, the split product of two
// fragments, the reference tiles' size, and asynchronous copies from global to shared memory.

#include <cuda_fp16.h>

#include <cstdint>

#include "cuda/knn_device.cuh"

namespace sepal::cuda {

constexpr int kSplitRefTile = 64;  // references per shared-memory tile (2 parts of 32)

// The tensor-core helpers exist for compute capability 8.0 and later (the kernels take their
// paths only there).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// Two values (already scaled into FP16's range) as FP16 high parts and the FP16 roundings of
/// the rests, each pair packed as an mma.sync register (the first in the low half).
__device__ __forceinline__ void splitHalf2(float x0, float x1, uint32_t& hi, uint32_t& lo) {
    const __half2 h = __floats2half2_rn(x0, x1);
    const float2 back = __half22float2(h);
    const __half2 l = __floats2half2_rn(x0 - back.x, x1 - back.y);
    hi = *reinterpret_cast<const uint32_t*>(&h);
    lo = *reinterpret_cast<const uint32_t*>(&l);
}

/// Adds the split product of an A fragment (its FP16 high and low parts) and a B fragment (high
/// parts in x and y, low parts in z and w) to acc: the small terms first, so that both kernels
/// sum the same products in the same order.
__device__ __forceinline__ void splitMma(float (&acc)[4], const uint32_t (&aHi)[4],
                                         const uint32_t (&aLo)[4], float4 b) {
    const uint32_t h0 = __float_as_uint(b.x), h1 = __float_as_uint(b.y);
    const uint32_t l0 = __float_as_uint(b.z), l1 = __float_as_uint(b.w);
    detail::mmaF16(acc, aLo, h0, h1);
    detail::mmaF16(acc, aHi, l0, l1);
    detail::mmaF16(acc, aHi, h0, h1);
}

/// Closes the group of cp.async copies this thread started.
__device__ __forceinline__ void commitCopies() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/// Waits until at most N of this thread's groups of copies are still in flight.
template <int N>
__device__ __forceinline__ void waitCopiesBut() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
/// Starts a 16-byte copy from global to shared memory.
__device__ __forceinline__ void copy16(void* dst, const void* src) {
    const uint32_t to = uint32_t(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src));
}

/// Starts copying `count` consecutive reference tiles from `tile` on (their B fragments,
/// tileFragments a tile, and kSplitRefTile norms a tile) into buffer `buffer` of the block's
/// two, each of which holds tilesPerBuffer tiles, as one group of copies by all `threads` of the
/// block. The tiles lie one after another in global memory, so their copy is one run.
__device__ __forceinline__ void copyReferenceTiles(float4* tiles, float* tileNorms,
                                                   const float4* fragments, const float* norm2,
                                                   int tile, int count, int buffer,
                                                   int tileFragments, int tilesPerBuffer,
                                                   int threads) {
    const float4* src = fragments + size_t(tile) * tileFragments;
    float4* dst = tiles + buffer * tilesPerBuffer * tileFragments;
    for (int e = threadIdx.x; e < count * tileFragments; e += threads) copy16(dst + e, src + e);
    float* normDst = tileNorms + buffer * tilesPerBuffer * kSplitRefTile;
    const float* normSrc = norm2 + size_t(tile) * kSplitRefTile;
    for (int e = threadIdx.x; e < count * kSplitRefTile / 4; e += threads)
        copy16(normDst + 4 * e, normSrc + 4 * e);
    commitCopies();
}

/// Starts copying reference tile `tile` into buffer `buffer` of the block's two, one tile each.
__device__ __forceinline__ void copyReferenceTile(float4* tiles, float* tileNorms,
                                                  const float4* fragments, const float* norm2,
                                                  int tile, int buffer, int tileFragments,
                                                  int threads) {
    copyReferenceTiles(tiles, tileNorms, fragments, norm2, tile, 1, buffer, tileFragments, 1,
                       threads);
}

/// Calls scan(i, buffer) for tiles i = 0 .. count - 1 once issue(i) (which starts its copies
/// into buffer i % 2) has landed; the next tile's copies run during each scan.
template <class Issue, class Scan>
__device__ __forceinline__ void forEachReferenceTile(int count, Issue&& issue, Scan&& scan) {
    issue(0);
    for (int i = 0; i < count; ++i) {
        if (i + 1 < count) {
            issue(i + 1);
            waitCopiesBut<1>();
        } else {
            waitCopiesBut<0>();
        }
        __syncthreads();
        scan(i, i & 1);
        __syncthreads();  // the tile's buffer is refilled two iterations on
    }
}
#endif

}  // namespace sepal::cuda
