// The fused EmbedSOM kernel: k-NN and projection of a point in one pass.
//
// Decomposition: one thread per point, kFusedThreads points per block (64 when the list is 65
// long, to bound shared memory). The point (stride <= 128 floats, a compile-time STRIDE) lives in
// registers as float4s. Landmarks stream through shared memory in tiles of kTile rows that every
// thread of the block reads with broadcast float4 loads; distances are in difference form,
// summed in dimension order like the reference.
// Top-k: a sorted register list of LIST (= topnn rounded up to 9, 17, 33 or 65) distances and
// indices. A candidate is first compared with the list's last distance (one compare rejects most
// of them); survivors of a sub-tile of kFlush landmarks go to a per-thread buffer in shared
// memory and are inserted after the sub-tile, all lanes together, so that a warp does not run the
// insertion network once per landmark whenever any one lane needs it. Strict comparisons and
// landmarks visited in index order keep ties ordered by index.
// Projection (embedsom_project.cuh): the sorted neighbours go to shared memory and the O(k^2)
// pair loop reads (c_uv, w_uv) from the triangular pair table, so D costs O(1):
// D = 0.5 + (a_u - a_v) c_uv (embedsom.md, "faster, exact form").
// Shared memory: max(tile + candidate buffer, 20 B x LIST x threads): at most 83 KB (LIST 65).
// Limits: stride <= 128, topnn <= 65 (else the bitonic kernels run); any n, g >= topnn.

#include <cfloat>
#include <climits>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/knn_device.cuh"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kTile = 32;   // landmark rows per shared-memory tile
constexpr int kFlush = 16;  // landmarks between insertions of buffered candidates
constexpr int kUnroll = 4;  // distances computed side by side

__host__ __device__ constexpr int threadsFor(int list) {
    return list > 33 ? 64 : 128;
}

template <int STRIDE, int LIST>
constexpr size_t sharedBytes() {
    constexpr size_t threads = threadsFor(LIST);
    constexpr size_t knn = size_t(kTile) * STRIDE * 4 + size_t(kFlush) * threads * 8;
    constexpr size_t proj = size_t(LIST) * threads * 20;
    return knn > proj ? knn : proj;
}

template <int STRIDE, int LIST>
__global__ void __launch_bounds__(threadsFor(LIST)) fusedKernel(const ProjectionArgs a) {
    constexpr int kThreads = threadsFor(LIST);
    constexpr int kVec = STRIDE / 4;
    extern __shared__ float4 shared[];
    float4* tile = shared;                                              // kTile x kVec
    float2* buffer = reinterpret_cast<float2*>(shared + kTile * kVec);  // kFlush x kThreads
    float4* lists = shared;  // after the k-NN: kThreads x LIST entries, then their indices

    const int tid = threadIdx.x;
    const size_t p = size_t(blockIdx.x) * kThreads + tid;
    const bool active = p < a.n;

    float4 x[kVec];
    bool bad = false;
    {
        const float4* src = reinterpret_cast<const float4*>(a.points) + (active ? p : 0) * kVec;
#pragma unroll
        for (int c = 0; c < kVec; ++c)
            x[c] = detail::finiteOrZero4(active ? src[c] : make_float4(0, 0, 0, 0), bad);
    }

    float bd[LIST];
    int bi[LIST];
#pragma unroll
    for (int i = 0; i < LIST; ++i) bd[i] = FLT_MAX, bi[i] = INT_MAX;
    float threshold = FLT_MAX;
    // Squared distance to one landmark row in shared memory.
    auto distance = [&](const float4* l) {
        return detail::squaredDistance(x, [&](int c) { return l[c]; });
    };

    const float4* landmarks = reinterpret_cast<const float4*>(a.landmarks);
    for (int t0 = 0; t0 < a.g; t0 += kTile) {
        const int rows = min(kTile, a.g - t0);
        __syncthreads();
        for (int e = tid; e < rows * kVec; e += kThreads)
            tile[e] = landmarks[size_t(t0) * kVec + e];
        __syncthreads();
        for (int s0 = 0; s0 < rows; s0 += kFlush) {
            const int sEnd = min(kFlush, rows - s0);
            int count = 0;
            auto offer = [&](float acc, int j) {
                if (acc < threshold) {
                    buffer[count * kThreads + tid] = make_float2(acc, __int_as_float(j));
                    ++count;
                }
            };
            if (sEnd == kFlush) {
                // Unrolled by kUnroll: independent sums give the scheduler work while loads land
                // (wider unrolling costs registers, hence occupancy).
#pragma unroll
                for (int h = 0; h < kFlush; h += kUnroll) {
                    float dist[kUnroll];
#pragma unroll
                    for (int jj = 0; jj < kUnroll; ++jj)
                        dist[jj] = distance(tile + (s0 + h + jj) * kVec);
#pragma unroll
                    for (int jj = 0; jj < kUnroll; ++jj) offer(dist[jj], t0 + s0 + h + jj);
                }
            } else {
                for (int jj = 0; jj < sEnd; ++jj)
                    offer(distance(tile + (s0 + jj) * kVec), t0 + s0 + jj);
            }
            const int most = detail::warpMax(count);
            for (int e = 0; e < most; ++e) {
                if (e < count) {
                    const float2 c = buffer[e * kThreads + tid];
                    detail::insertSorted<LIST>(bd, bi, c.x, __float_as_int(c.y));
                }
            }
            threshold = bd[LIST - 1];
        }
    }

    if (a.out) __syncthreads();  // the tile and buffer are reused for the lists (uniform)
    detail::placeFromList<LIST, kThreads>(a, p, active, bad, bd, bi, lists);
}

template <int STRIDE, int LIST>
void launchOne(const ProjectionArgs& a, cudaStream_t stream) {
    detail::launchPerPoint<fusedKernel<STRIDE, LIST>>(
        a, threadsFor(LIST), sharedBytes<STRIDE, LIST>(), stream, "launch of fusedKernel");
}

template <int STRIDE>
void launchForStride(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.topnn <= 9) return launchOne<STRIDE, 9>(a, stream);
    if (a.topnn <= 17) return launchOne<STRIDE, 17>(a, stream);
    if (a.topnn <= 33) return launchOne<STRIDE, 33>(a, stream);
    if constexpr (STRIDE <= 64) return launchOne<STRIDE, 65>(a, stream);
}

}  // namespace

void launchFused(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    detail::withStride<4, 8, 16, 32, 64, 128>(
        a.stride, [&](auto s) { launchForStride<decltype(s)::value>(a, stream); });
}

}  // namespace sepal::cuda
