// The neighbour cache's index on the device: which cells list each landmark among their topn.
//
// Decomposition: countListed and fillIndex give each block a slice of cells; with g small enough
// for shared memory (kSharedLandmarks), the block first counts its slice per landmark in shared
// memory, so that a landmark costs one global atomic per block, not one per cell (10^8 cells
// x 16 entries over 256 landmarks would otherwise serialise on 256 addresses). fillIndex then
// reserves each landmark's range for the block with one global atomic and hands out places in it
// with shared atomics. gatherRows is one thread per output entry with a binary search over the
// segments (a drag moves few landmarks). countFlags: one thread per 16 bytes, warp sums, one
// atomic per warp. firstOfLists: one thread per cell.

#include "cuda/cuda_error.h"
#include "cuda/list_index.h"

namespace sepal::cuda {
namespace {

constexpr int kThreads = 256;
constexpr size_t kCellsPerBlock = 4096;
/// Landmarks counted in shared memory (48 KB of 32-bit counters); more go to global atomics.
constexpr int kSharedLandmarks = 12288;

__device__ bool listed(const ListView& l, size_t p) {
    return l.dist[p * l.kOut] >= 0.0f;
}

__global__ void countListedKernel(const ListView l, int g, uint32_t* counts) {
    extern __shared__ uint32_t local[];
    const bool shared = g <= kSharedLandmarks;
    if (shared)
        for (int j = threadIdx.x; j < g; j += blockDim.x) local[j] = 0;
    __syncthreads();
    const size_t first = size_t(blockIdx.x) * kCellsPerBlock;
    const size_t last = first + kCellsPerBlock < l.n ? first + kCellsPerBlock : l.n;
    const size_t entries = (last - first) * size_t(l.topn);
    for (size_t e = threadIdx.x; e < entries; e += blockDim.x) {
        const size_t p = first + e / l.topn;
        if (!listed(l, p)) continue;
        const uint32_t j = l.idx[p * l.kOut + e % l.topn];
        atomicAdd(shared ? &local[j] : &counts[j], 1u);
    }
    __syncthreads();
    if (shared)
        for (int j = threadIdx.x; j < g; j += blockDim.x)
            if (local[j]) atomicAdd(&counts[j], local[j]);
}

__global__ void fillIndexKernel(const ListView l, int g, unsigned long long* cursor,
                                uint32_t* rows) {
    extern __shared__ unsigned long long base[];  // per landmark: this block's next place
    const bool shared = g <= kSharedLandmarks;
    const size_t first = size_t(blockIdx.x) * kCellsPerBlock;
    const size_t last = first + kCellsPerBlock < l.n ? first + kCellsPerBlock : l.n;
    const size_t entries = (last - first) * size_t(l.topn);
    if (shared) {
        for (int j = threadIdx.x; j < g; j += blockDim.x) base[j] = 0;
        __syncthreads();
        for (size_t e = threadIdx.x; e < entries; e += blockDim.x) {
            const size_t p = first + e / l.topn;
            if (listed(l, p)) atomicAdd(&base[l.idx[p * l.kOut + e % l.topn]], 1ull);
        }
        __syncthreads();
        // The block's range of each landmark: one global atomic per landmark it lists.
        for (int j = threadIdx.x; j < g; j += blockDim.x)
            if (base[j]) base[j] = atomicAdd(&cursor[j], base[j]);
        __syncthreads();
    }
    for (size_t e = threadIdx.x; e < entries; e += blockDim.x) {
        const size_t p = first + e / l.topn;
        if (!listed(l, p)) continue;
        const uint32_t j = l.idx[p * l.kOut + e % l.topn];
        const unsigned long long at = atomicAdd(shared ? &base[j] : &cursor[j], 1ull);
        rows[at] = uint32_t(p);
    }
}

__global__ void gatherRowsKernel(const uint32_t* rows, const unsigned long long* starts,
                                 const unsigned long long* prefix, int segments, size_t total,
                                 uint32_t* out) {
    for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
         t += size_t(gridDim.x) * blockDim.x) {
        int lo = 0, hi = segments - 1;  // the last segment whose prefix is <= t
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (prefix[mid] <= t)
                lo = mid;
            else
                hi = mid - 1;
        }
        out[t] = rows[starts[lo] + (t - prefix[lo])];
    }
}

__global__ void countFlagsKernel(const uint8_t* flags, size_t n, unsigned long long* count) {
    unsigned long long mine = 0;
    for (size_t i = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * 16; i < n;
         i += size_t(gridDim.x) * blockDim.x * 16) {
        const size_t end = i + 16 < n ? i + 16 : n;
        for (size_t b = i; b < end; ++b) mine += flags[b] != 0;
    }
    for (int o = 16; o > 0; o /= 2) mine += __shfl_down_sync(0xffffffffu, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(count, mine);
}

unsigned blocksFor(size_t n) {
    return unsigned((n + kCellsPerBlock - 1) / kCellsPerBlock);
}

size_t sharedFor(int g, size_t bytesPerLandmark) {
    return g <= kSharedLandmarks ? size_t(g) * bytesPerLandmark : 0;
}

__global__ void firstOfListsKernel(const uint32_t* idx, int kOut, size_t n, uint32_t* nearest) {
    for (size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x; p < n;
         p += size_t(gridDim.x) * blockDim.x)
        nearest[p] = idx[p * kOut];
}

// The queue's length is read on the device: no host round trip between the launches.
__global__ void forgetQueuedKernel(const uint32_t* queued, const unsigned long long* queuedCount,
                                   uint32_t* nearest) {
    const unsigned long long count = *queuedCount;
    for (size_t q = size_t(blockIdx.x) * blockDim.x + threadIdx.x; q < count;
         q += size_t(gridDim.x) * blockDim.x)
        nearest[queued[q]] = kNoNearest;
}

}  // namespace

void launchCountListed(const ListView& lists, int g, uint32_t* counts, cudaStream_t stream) {
    if (lists.n == 0) return;
    countListedKernel<<<blocksFor(lists.n), kThreads, sharedFor(g, 4), stream>>>(lists, g, counts);
    SEPAL_CUDA_CHECK_LAUNCH("countListedKernel");
}

void launchFillIndex(const ListView& lists, int g, unsigned long long* cursor, uint32_t* rows,
                     cudaStream_t stream) {
    if (lists.n == 0) return;
    const size_t shared = sharedFor(g, 8);
    if (shared > 48 * 1024)
        SEPAL_CUDA_CHECK(cudaFuncSetAttribute(
            fillIndexKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    fillIndexKernel<<<blocksFor(lists.n), kThreads, shared, stream>>>(lists, g, cursor, rows);
    SEPAL_CUDA_CHECK_LAUNCH("fillIndexKernel");
}

void launchGatherRows(const uint32_t* rows, const unsigned long long* starts,
                      const unsigned long long* prefix, int segments, size_t total, uint32_t* out,
                      cudaStream_t stream) {
    if (total == 0 || segments == 0) return;
    const size_t wanted = (total + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < 65536 ? wanted : 65536);
    gatherRowsKernel<<<blocks, kThreads, 0, stream>>>(rows, starts, prefix, segments, total, out);
    SEPAL_CUDA_CHECK_LAUNCH("gatherRowsKernel");
}

void launchCountFlags(const uint8_t* flags, size_t n, unsigned long long* count,
                      cudaStream_t stream) {
    if (n == 0) return;
    const size_t wanted = (n + kThreads * 16 - 1) / (kThreads * 16);
    const unsigned blocks = unsigned(wanted < 8192 ? wanted : 8192);
    countFlagsKernel<<<blocks, kThreads, 0, stream>>>(flags, n, count);
    SEPAL_CUDA_CHECK_LAUNCH("countFlagsKernel");
}

void launchFirstOfLists(const uint32_t* idx, int kOut, size_t n, const uint32_t* queued,
                        const unsigned long long* queuedCount, uint32_t* nearest,
                        cudaStream_t stream) {
    if (n == 0) return;
    const size_t wanted = (n + kThreads - 1) / kThreads;
    const unsigned blocks = unsigned(wanted < 65536 ? wanted : 65536);
    firstOfListsKernel<<<blocks, kThreads, 0, stream>>>(idx, kOut, n, nearest);
    SEPAL_CUDA_CHECK_LAUNCH("firstOfListsKernel");
    forgetQueuedKernel<<<64, kThreads, 0, stream>>>(queued, queuedCount, nearest);
    SEPAL_CUDA_CHECK_LAUNCH("forgetQueuedKernel");
}

}  // namespace sepal::cuda
