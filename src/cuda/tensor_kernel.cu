// The tensor kernel: EmbedSOM with TF32 tensor-core candidates, an exact re-rank, then the fused
// kernel's projection. Same neighbours, bit for bit, as the fused kernel and the CPU backend.
//
// Decomposition: 4 warps per block, 32 points per warp, no block barrier before the projection.
// A warp stages its points through shared memory (coalesced), keeps them centred on the
// landmarks' mean and rounded to TF32 as m16n8k8 mma.sync A fragments (two 16-point tiles), and
// streams the landmarks, prepared in fragment order (tensorFragmentIndex), straight from global
// memory with 16-byte coalesced loads (256 landmarks of 32 dimensions stay in L1; larger sets
// come from L2, which is the kernel's main cost at g = 1024, d = 64).
// Each lane then holds v_j = |L_j - m|^2 - 2 <x - m, L_j - m> (the squared distance less
// |x - m|^2) of 4 points x 2 landmarks per tile of 8 landmarks.
// Pass 1 keeps, per point, the smallest v of each of kGroups disjoint landmark groups (a group: one
// column of the fragment, one bucket of tiles; one FMNMX per value); the topnn-th smallest group
// minimum T bounds the topnn-th smallest v from above, since topnn groups have a value at or
// below it. Pass 2 recomputes the products and keeps every landmark with v <= T + 2E, where E
// bounds |v + |x - m|^2 - a_j| (TF32 rounding, float sums, centring and the exact distance's own
// rounding); that set holds every true neighbour, ties included. Each point owns its exact
// re-rank (one point per lane, its row in registers): difference-form distances in dimension
// order as the CPU computes them, ordered by (distance, index) through 64-bit keys, and
// placeFromList projects. A point with more candidates than a lane's sublist holds (many
// landmarks at one distance) or a bound that overflowed scans all landmarks exactly instead:
// slower, same result.
// Shared memory per block: the warps' staging rows or group minima, the thresholds, the
// candidate lists (16-bit shuffled positions), then 20 B x LIST x 128 for the projection.
// Limits: stride 8 to 64, topnn <= 33, g < 65536, compute capability 8.0 or later.

#include <cfloat>
#include <climits>
#include <cstdint>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/knn_device.cuh"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;

/// Compile-time shape of one instantiation (sizes in 4-byte words unless said).
template <int STRIDE, int LIST>
struct Shape {
    static constexpr int kRow = STRIDE < 16 ? 16 : STRIDE;  // tensorStride
    static constexpr int kBuckets = LIST <= 17 ? 4 : 8;     // tile buckets per column
    static constexpr int kGroups = 8 * kBuckets;            // landmark groups per point
    // Candidates per lane and point: a point's candidates split over its quad's four lanes
    // unevenly, and a full sublist sends the point to the exhaustive scan.
    static constexpr int kSub = LIST <= 9 ? 16 : LIST <= 17 ? 32 : 48;
    static constexpr int kCapacity = 4 * kSub;    // candidates per point
    static constexpr int kStageLd = kRow + 4;     // staging row, against conflicts
    static constexpr int kMinLd = kGroups + 1;    // group-minimum row
    static constexpr int kStage = 32 * kStageLd;  // per warp
    static constexpr int kMins = 32 * kMinLd;     // per warp
    static constexpr int kScratch = kStage > kMins ? kStage : kMins;
    static constexpr size_t kScanBytes =
        size_t(kWarps) * kScratch * 4 + kThreads * 4 + size_t(kThreads) * kCapacity * 2;
    static constexpr size_t kListBytes = size_t(LIST) * kThreads * 20;
    static constexpr size_t kBytes = kScanBytes > kListBytes ? kScanBytes : kListBytes;
    static_assert(kTensorPadding % (8 * kBuckets) == 0, "the padding must hold whole buckets");
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// Sort key of a candidate: (distance, index) order is the unsigned order of the key, since
/// non-negative floats order like their bit patterns.
__device__ __forceinline__ unsigned long long candidateKey(float d, int j) {
    return (static_cast<unsigned long long>(__float_as_uint(d)) << 32) | uint32_t(j);
}

/// Inserts key into the ascending register list when it is smaller than the last entry.
template <int LIST>
__device__ __forceinline__ void insertKey(unsigned long long (&keys)[LIST],
                                          unsigned long long key) {
#pragma unroll
    for (int i = LIST - 1; i > 0; --i) {
        const unsigned long long prev = keys[i - 1], cur = keys[i];
        keys[i] = key < prev ? prev : (key < cur ? key : cur);
    }
    keys[0] = key < keys[0] ? key : keys[0];
}
#endif

/// Blocks per multiprocessor the register allocation must allow: four for the short lists, no
/// bound where that would spill heavily.
__host__ __device__ constexpr int minBlocksFor(int stride, int list) {
    return stride <= 32 && list <= 17 ? 4 : 1;
}

template <int STRIDE, int LIST>
__global__ void __launch_bounds__(kThreads, minBlocksFor(STRIDE, LIST))
    tensorKernel(const ProjectionArgs a) {
#if __CUDA_ARCH__ >= 800
    using S = Shape<STRIDE, LIST>;
    constexpr int kRow = S::kRow, kVec = STRIDE / 4, kB = S::kBuckets;
    constexpr int kSteps = kRow / 8;   // k-steps of 8 dimensions
    constexpr int kPairs = kRow / 16;  // float4 B loads per tile of 8 landmarks
    extern __shared__ float4 shared[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int gq = lane >> 2, t4 = lane & 3;  // fragment row group and column pair
    float* scratch = reinterpret_cast<float*>(shared) + warp * S::kScratch;
    float* thresholds = reinterpret_cast<float*>(shared) + kWarps * S::kScratch;  // per thread
    uint16_t* cand = reinterpret_cast<uint16_t*>(thresholds + kThreads);
    float4* lists = shared;  // after the k-NN: the projection's lists

    const size_t p0 = size_t(blockIdx.x) * kThreads + warp * 32;  // the warp's first point
    const size_t p = p0 + lane;
    const bool active = p < a.n;

    // The exact row for the re-rank, and the A fragments of the warp's points.
    float4 x[kVec];
    bool bad = false;
    uint32_t fa[2][kSteps][4];
    const size_t avail = p0 >= a.n ? 0 : a.n - p0 < 32 ? a.n - p0 : 32;
    const float centred2 = detail::loadPointFragments<kVec, kRow, S::kStageLd>(
        a.points, p0, avail, a.tensor.centre, scratch, x, bad, fa);
    // The scratch now takes the group minima.

    // The products of tile nt: v[q][c] for the lane's point slot q (point 8 q + gq of the warp)
    // and landmark 8 nt + 2 t4 + c of the shuffled order.
    const float4* frags = reinterpret_cast<const float4*>(a.tensor.rows);
    const float2* norms = reinterpret_cast<const float2*>(a.tensor.norms);
    auto tileValues = [&](int nt, float(&v)[4][2]) {
        float4 b[kPairs];
#pragma unroll
        for (int kp = 0; kp < kPairs; ++kp) b[kp] = __ldg(frags + (nt * kPairs + kp) * 32 + lane);
        detail::tileValues<kSteps>(fa, b, __ldg(norms + nt * 4 + t4), v);
    };
    const int tiles = a.tensor.gPad / 8;

    // Pass 1: per point slot, the minimum of each (column, bucket) group of this lane.
    {
        float mins[4][2][kB];
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int c = 0; c < 2; ++c)
#pragma unroll
                for (int bk = 0; bk < kB; ++bk) mins[q][c][bk] = FLT_MAX;
        for (int nt0 = 0; nt0 < tiles; nt0 += kB) {
#pragma unroll
            for (int bk = 0; bk < kB; ++bk) {
                float v[4][2];
                tileValues(nt0 + bk, v);
#pragma unroll
                for (int q = 0; q < 4; ++q)
#pragma unroll
                    for (int c = 0; c < 2; ++c) mins[q][c][bk] = fminf(mins[q][c][bk], v[q][c]);
            }
        }
        // Point 8 q + gq's groups, from the four lanes of its quad, into its row.
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int c = 0; c < 2; ++c)
#pragma unroll
                for (int bk = 0; bk < kB; ++bk)
                    scratch[(8 * q + gq) * S::kMinLd + (2 * t4 + c) * kB + bk] = mins[q][c][bk];
    }
    __syncwarp();
    // E: TF32 inputs (relative 2^-11 each) and tensor-core sums give |dv error| <= ~2^-10 |x - m|
    // |L - m|, so v is off by at most ~2^-9 |x - m| R; the float distances (CPU and ours) and
    // the centring add (2d + 16) 2^-24 (|x - m| + R)^2 at most. Both taken four times over.
    bool trusted;
    {
        float groupMin[S::kGroups];
#pragma unroll
        for (int i = 0; i < S::kGroups; ++i) groupMin[i] = scratch[lane * S::kMinLd + i];
        detail::sortAscending<S::kGroups>(groupMin);
        // The topnn-th entry as the largest of the first topnn (a select chain would become an
        // indexed load from local memory).
        float bound = -FLT_MAX;
#pragma unroll
        for (int i = 0; i < S::kGroups; ++i)
            bound = fmaxf(bound, i < a.topnn ? groupMin[i] : -FLT_MAX);
        const float r = sqrtf(centred2), span = r + a.tensor.radius;
        const float margin =
            2.0f * (0x1p-7f * r * a.tensor.radius + float(2 * a.dim + 16) * 0x1p-22f * span * span);
        const float threshold = bound + margin;
        trusted = threshold < FLT_MAX;  // overflowing data: scan exactly below
        thresholds[tid] = trusted ? threshold : -FLT_MAX;
    }
    __syncwarp();

    // Pass 2: the shuffled position of every landmark that may hold a true neighbour, into the
    // lane's sublist of the point (sublist t4 of point 8 q + gq: no two lanes write one list). Few
    // values pass, so the lane first collects a mask of them and then loops over its bits: the warp
    // runs the stores as often as its busiest lane needs, not once per value any lane needs.
    int sub[4];
    {
        float thr[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) thr[q] = thresholds[warp * 32 + 8 * q + gq];
        uint32_t counts = 0;  // 8 bits per point slot, saturating at kSub + 1
        for (int nt = 0; nt < tiles; ++nt) {
            float v[4][2];
            tileValues(nt, v);
            uint32_t mask = 0;
#pragma unroll
            for (int q = 0; q < 4; ++q)
#pragma unroll
                for (int c = 0; c < 2; ++c) mask |= uint32_t(v[q][c] <= thr[q]) << (2 * q + c);
            while (mask) {
                const int bit = __ffs(mask) - 1, q = bit >> 1;
                mask &= mask - 1;
                const uint32_t count = (counts >> (8 * q)) & 0xffu;
                if (count < S::kSub) {
                    const int point = warp * 32 + 8 * q + gq;
                    cand[(point * 4 + t4) * S::kSub + count] =
                        uint16_t(8 * nt + 2 * t4 + (bit & 1));
                }
                if (count <= S::kSub) counts += 1u << (8 * q);
            }
        }
        // Counts into the owners' rows of the scratch (every lane's minima have been read).
#pragma unroll
        for (int q = 0; q < 4; ++q)
            reinterpret_cast<int*>(scratch)[(8 * q + gq) * 4 + t4] = (counts >> (8 * q)) & 0xffu;
        __syncwarp();
#pragma unroll
        for (int s = 0; s < 4; ++s) sub[s] = reinterpret_cast<const int*>(scratch)[lane * 4 + s];
    }

    // Exact re-rank in the reference's arithmetic.
    bool exhaustive = !trusted;
#pragma unroll
    for (int s = 0; s < 4; ++s) exhaustive = exhaustive || sub[s] > S::kSub;
    const float4* landmarks = reinterpret_cast<const float4*>(a.landmarks);
    unsigned long long keys[LIST];
#pragma unroll
    for (int i = 0; i < LIST; ++i) keys[i] = ~0ull;
    const uint16_t* mine = cand + tid * S::kCapacity;
    const int end0 = sub[0], end1 = end0 + sub[1], end2 = end1 + sub[2];
    const int total = exhaustive ? a.g : end2 + sub[3];
    for (int e = 0; e < total; e += 4) {
        int j[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            // Entry f of the concatenated sublists (or landmark f when scanning all).
            const int f = min(e + q, total - 1);
            const int at = f < end0   ? f
                           : f < end1 ? S::kSub + f - end0
                           : f < end2 ? 2 * S::kSub + f - end1
                                      : 3 * S::kSub + f - end2;
            j[q] = exhaustive ? f : __ldg(a.tensor.perm + mine[at]);
        }
        // Four candidates side by side: independent sums hide the loads' latency.
        float dist[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const float4* row = landmarks + size_t(j[q]) * kVec;
            dist[q] = detail::squaredDistance(x, [&](int c) { return __ldg(row + c); });
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const unsigned long long key = candidateKey(dist[q], j[q]);
            if (e + q < total && key < keys[LIST - 1]) insertKey<LIST>(keys, key);
        }
    }

    detail::countCandidates(a.tensorStats, active, total, exhaustive);

    float bd[LIST];
    int bi[LIST];
#pragma unroll
    for (int i = 0; i < LIST; ++i) {
        bd[i] = __uint_as_float(uint32_t(keys[i] >> 32));
        bi[i] = int(uint32_t(keys[i]));
    }
    if (a.out) __syncthreads();  // the scan's memory is reused for the lists (uniform)
    detail::placeFromList<LIST, kThreads>(a, p, active, bad, bd, bi, lists);
#endif
}

template <int STRIDE, int LIST>
void launchOne(const ProjectionArgs& a, cudaStream_t stream) {
    detail::launchPerPoint<tensorKernel<STRIDE, LIST>>(a, kThreads, Shape<STRIDE, LIST>::kBytes,
                                                       stream, "launch of tensorKernel");
}

template <int STRIDE>
void launchForStride(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.topnn <= 9) return launchOne<STRIDE, 9>(a, stream);
    if (a.topnn <= 17) return launchOne<STRIDE, 17>(a, stream);
    return launchOne<STRIDE, 33>(a, stream);
}

}  // namespace

void launchTensor(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    detail::withStride<8, 16, 32, 64>(
        a.stride, [&](auto s) { launchForStride<decltype(s)::value>(a, stream); });
}

}  // namespace sepal::cuda
