// The training step's per-landmark sums: every point's coordinates added to its nearest
// landmark's row, its count and the inertia, with non-finite points skipped.
//
// Decomposition: a persistent grid (as many blocks of 1024 threads as fit on the device) takes
// chunks of up to kMaxChunk consecutive points. A block adds its chunk into g x stride float sums
// and g counts in shared memory (shared atomics: the points' rows are read once, coalesced, and
// the g x d global sums see one double atomic per landmark and dimension per chunk instead of one
// per point), then flushes them to the global double sums and starts the next chunk. Chunks are
// bounded so that a float partial sum runs over at most kMaxChunk values (relative error ~1e-5
// at worst). Within a chunk, a warp takes one point per iteration when stride >= 32 (lane t holds
// dimension t, t + 32, ...: conflict-free shared atomics), or 32 / stride points at a time for
// narrower rows; it loads several points before adding them, to keep loads in flight.
// When the sums do not fit in the device's opt-in shared memory, the same loop adds straight to
// the global sums with double atomics (correct, slower). Points whose distance the training step
// left unmeasured (a negative distance: its bounds kept them, or the nearest pass took their lone
// candidate; with args.landmarks) have their distances measured from their rows, in an
// instantiation of their own.
// Limits: g < 2^31 / stride; strides 4 to 128 are compiled as constants, wider ones at run time.

#include <cstdint>

#include "cuda/block_sums.cuh"
#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/landmark_sums.h"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

constexpr int kSumThreads = 1024;
constexpr size_t kMaxChunk = size_t(1) << 18;
constexpr size_t kMinChunk = 1024;

/// How a warp covers rows of STRIDE floats (0: a stride known at run time, above 128).
template <int STRIDE>
struct RowShape {
    static constexpr int lanes = STRIDE > 0 && STRIDE < 32 ? STRIDE : 32;  // lanes per point
    static constexpr int points = 32 / lanes;                              // points per warp
    static constexpr int values = STRIDE > 32 ? STRIDE / 32 : 1;           // values per lane
    static constexpr int unroll = values == 1 ? 8 : values == 2 ? 4 : 2;   // points in flight
};

/// Adds value v of landmark b's column t to the sums (shared float or global double).
template <bool SHARED>
__device__ __forceinline__ void addValue(const LandmarkSumArgs& a, float* rows, int row, uint32_t b,
                                         int t, float v) {
    if (SHARED)
        atomicAdd(rows + size_t(b) * row + t, v);
    else
        atomicAdd(a.sums + size_t(b) * a.d + t, double(v));
}

/// The squared distance of a point whose distance the training step left (dist negative) to its
/// landmark b, summed over the lanes that hold its values; dist itself for any other point. All
/// lanes of the warp call it together.
template <int STRIDE>
__device__ __forceinline__ float measured(const LandmarkSumArgs& a, bool valid, uint32_t b,
                                          float dist, const float (&v)[RowShape<STRIDE>::values],
                                          int col) {
    using S = RowShape<STRIDE>;
    const bool kept = valid && dist < 0.0f && b < uint32_t(a.g);
    float part = 0.0f;
    if (kept) {
#pragma unroll
        for (int k = 0; k < S::values; ++k) {
            const int t = col + 32 * k;
            const float e = t < a.d ? v[k] - __ldg(a.landmarks + size_t(b) * a.stride + t) : 0.0f;
            part = fmaf(e, e, part);
        }
    }
    for (int o = 1; o < S::lanes; o <<= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
    return kept ? part : dist;
}

/// One point (its lane's values v) into the sums; all lanes of the warp call it together.
template <int STRIDE, bool SHARED>
__device__ __forceinline__ void addPoint(const LandmarkSumArgs& a, float* rows, unsigned* counts,
                                         int row, size_t p, bool valid, uint32_t b, float dist,
                                         const float (&v)[RowShape<STRIDE>::values], int col,
                                         unsigned group, double& inertia,
                                         unsigned long long& skipped) {
    using S = RowShape<STRIDE>;
    bool finite = true;
#pragma unroll
    for (int k = 0; k < S::values; ++k) finite = finite && isfinite(v[k]);
    const unsigned bad = __ballot_sync(0xffffffffu, valid && !finite) & group;
    if (!valid) return;
    if (bad != 0 || b >= uint32_t(a.g)) {
        if (col == 0) {
            a.assign[p] = kSkippedPoint;
            ++skipped;
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < S::values; ++k) {
        const int t = col + 32 * k;
        if (t < a.d) addValue<SHARED>(a, rows, row, b, t, v[k]);
    }
    if (col == 0) {
        if (SHARED)
            atomicAdd(counts + b, 1u);
        else
            atomicAdd(a.counts + b, 1ull);
        if (isfinite(dist) && dist >= 0.0f) inertia += double(dist);  // as sorted_sums.cu
    }
}

/// Points [begin, end) into the sums, with rows of a stride known at compile time.
template <int STRIDE, bool SHARED, bool MEASURE>
__device__ void addChunk(const LandmarkSumArgs& a, float* rows, unsigned* counts, size_t begin,
                         size_t end, double& inertia, unsigned long long& skipped) {
    using S = RowShape<STRIDE>;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int sub = lane / S::lanes, col = lane % S::lanes;
    const unsigned group =
        S::lanes == 32 ? 0xffffffffu : ((1u << S::lanes) - 1u) << (sub * S::lanes);
    const size_t step = size_t(warps) * S::points;
    // Fewer points in flight where the distances measured here take registers (they spilled).
    constexpr int kUnroll = MEASURE && S::unroll > 2 ? S::unroll / 2 : S::unroll;
    for (size_t p0 = begin + size_t(warp) * S::points; p0 < end; p0 += kUnroll * step) {
        float v[kUnroll][S::values];
        uint32_t b[kUnroll];
        float dist[kUnroll];
        // Every load first, then the atomics: the loads of several points stay in flight.
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const size_t p = p0 + u * step + sub;
            const bool valid = p < end;
            b[u] = valid ? a.assign[p] : 0u;
            dist[u] = valid ? a.dist[p] : 0.0f;
#pragma unroll
            for (int k = 0; k < S::values; ++k)
                v[u][k] = valid ? a.points[p * STRIDE + col + 32 * k] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const size_t p = p0 + u * step + sub;
            if (MEASURE) dist[u] = measured<STRIDE>(a, p < end, b[u], dist[u], v[u], col);
            addPoint<STRIDE, SHARED>(a, rows, counts, STRIDE, p, p < end, b[u], dist[u], v[u], col,
                                     group, inertia, skipped);
        }
    }
}

/// Points [begin, end) into the sums, rows wider than 128 (a warp per point, two reads of it).
template <bool SHARED, bool MEASURE>
__device__ void addChunkWide(const LandmarkSumArgs& a, float* rows, unsigned* counts, size_t begin,
                             size_t end, double& inertia, unsigned long long& skipped) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (size_t p = begin + size_t(warp); p < end; p += size_t(warps)) {
        const float* x = a.points + p * size_t(a.stride);
        bool finite = true;
        for (int t = lane; t < a.d; t += 32) finite = finite && isfinite(x[t]);
        const uint32_t b = a.assign[p];
        if (!__all_sync(0xffffffffu, finite) || b >= uint32_t(a.g)) {
            if (lane == 0) {
                a.assign[p] = kSkippedPoint;
                ++skipped;
            }
            continue;
        }
        for (int t = lane; t < a.d; t += 32) addValue<SHARED>(a, rows, a.stride, b, t, x[t]);
        float dist = a.dist[p];
        if (MEASURE && dist < 0.0f) {  // left unmeasured by the step: measured here
            float part = 0.0f;
            for (int t = lane; t < a.d; t += 32) {
                const float e = x[t] - a.landmarks[size_t(b) * a.stride + t];
                part = fmaf(e, e, part);
            }
            for (int o = 16; o > 0; o >>= 1) part += __shfl_xor_sync(0xffffffffu, part, o);
            dist = part;
        }
        if (lane == 0) {
            if (SHARED)
                atomicAdd(counts + b, 1u);
            else
                atomicAdd(a.counts + b, 1ull);
            if (isfinite(dist) && dist >= 0.0f) inertia += double(dist);
        }
    }
}

template <int STRIDE, bool SHARED, bool MEASURE>
__global__ void __launch_bounds__(kSumThreads)
    landmarkSumsKernel(const LandmarkSumArgs a, size_t chunk) {
    extern __shared__ float shared[];
    const int row = a.stride;
    float* rows = shared;  // g x stride (SHARED only)
    unsigned* counts = reinterpret_cast<unsigned*>(shared + size_t(a.g) * row);
    double inertia = 0;
    unsigned long long skipped = 0;
    const size_t chunks = (a.n + chunk - 1) / chunk;
    for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        const size_t begin = c * chunk, end = a.n - begin < chunk ? a.n : begin + chunk;
        if (SHARED) {
            for (size_t e = threadIdx.x; e < size_t(a.g) * (row + 1); e += blockDim.x)
                shared[e] = 0.0f;
            __syncthreads();
        }
        if constexpr (STRIDE > 0)
            addChunk<STRIDE, SHARED, MEASURE>(a, rows, counts, begin, end, inertia, skipped);
        else
            addChunkWide<SHARED, MEASURE>(a, rows, counts, begin, end, inertia, skipped);
        if (SHARED) {
            __syncthreads();
            // The next chunk clears the shared sums only after every thread has read them.
            detail::flushBlockSums(a, rows, row, counts);
            __syncthreads();
        }
    }
    detail::addBlockTotals(a, inertia, skipped);
}

template <int STRIDE, bool SHARED, bool MEASURE>
void launchSums(const LandmarkSumArgs& a, cudaStream_t stream) {
    const size_t bytes = SHARED ? landmarkSumsSharedBytes(a.g, a.stride) : 0;
    constexpr auto kernel = landmarkSumsKernel<STRIDE, SHARED, MEASURE>;
    detail::allowSharedBytes<kernel>(bytes);
    int perSm = 0;
    SEPAL_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kSumThreads, bytes));
    const size_t slots = size_t(perSm > 0 ? perSm : 1) * size_t(detail::multiprocessorCount());
    // Enough chunks to fill every slot, none longer than kMaxChunk.
    size_t chunk = (a.n + slots - 1) / slots;
    chunk = chunk < kMinChunk ? kMinChunk : chunk > kMaxChunk ? kMaxChunk : chunk;
    const size_t chunks = (a.n + chunk - 1) / chunk;
    const unsigned blocks = unsigned(chunks < slots ? chunks : slots);
    kernel<<<blocks, kSumThreads, bytes, stream>>>(a, chunk);
    SEPAL_CUDA_CHECK_LAUNCH("landmarkSumsKernel");
}

template <bool SHARED>
void launchForStride(const LandmarkSumArgs& a, cudaStream_t stream) {
    bool done = false;
    detail::withStride<4, 8, 16, 32, 64, 128>(a.stride, [&](auto s) {
        // The distances measured here in an instantiation of their own: with the measurement in
        // every instantiation, the 64 registers a thread has spilled in the plain passes too.
        if (a.landmarks)
            launchSums<decltype(s)::value, SHARED, true>(a, stream);
        else
            launchSums<decltype(s)::value, SHARED, false>(a, stream);
        done = true;
    });
    if (done) return;
    if (a.landmarks)
        launchSums<0, SHARED, true>(a, stream);
    else
        launchSums<0, SHARED, false>(a, stream);
}

}  // namespace

size_t landmarkSumsSharedBytes(int g, int stride) {
    return size_t(g) * size_t(stride + 1) * sizeof(float);
}

bool landmarkSumsFitShared(int g, int stride) {
    return landmarkSumsSharedBytes(g, stride) <= detail::maxSharedBytesOptin();
}

void launchLandmarkSums(const LandmarkSumArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    if (landmarkSumsFitShared(a.g, a.stride))
        launchForStride<true>(a, stream);
    else
        launchForStride<false>(a, stream);
}

}  // namespace sepal::cuda
