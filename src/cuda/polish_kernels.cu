// The UMAP-like polish on the device, bit for bit the CPU's (core/pipeline/polish_neighbours.cpp,
// polish_epoch.cpp): every floating-point step below is one the CPU takes, rounded alone (the
// intrinsics keep nvcc from fusing a multiply and an add the CPU does apart), in the same order.
//
// Neighbours: one warp per query cell, the queries in the order of their nearest landmark's list
// so that warps running together read the same lists from L2. The lanes take 32 candidates at a
// time, each its own candidate's squared distance over the dimensions; the warp keeps the k best
// (distance, index) pairs as 64-bit keys sorted across its lanes, and inserts the round's better
// candidates one by one, best first (after a few rounds hardly any is better than the k-th).

#include <cstdint>

#include "cuda/cuda_error.h"
#include "cuda/polish_kernels.h"

namespace sepal::cuda {
namespace {

constexpr uint64_t kEmptyKey = ~0ull;
constexpr int kPolishWarpsPerBlock = 8;

__device__ __forceinline__ uint64_t warpMin(uint64_t v) {
    for (int o = 16; o > 0; o >>= 1) {
        const uint64_t other = __shfl_xor_sync(0xffffffffu, v, o);
        v = other < v ? other : v;
    }
    return v;
}

__global__ void __launch_bounds__(32 * kPolishWarpsPerBlock)
    polishNeighboursKernel(const PolishNeighbourArgs a) {
    const size_t q = size_t(blockIdx.x) * kPolishWarpsPerBlock + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (q >= a.listed) return;
    const uint32_t i = a.cells[q];
    const float* x = a.points + size_t(i) * size_t(a.d);
    // The lanes' sorted keys: lane r holds the r-th best found so far (lanes >= k stay empty).
    uint64_t best = kEmptyKey;
    uint64_t kth = kEmptyKey;
    for (int p = 0; p < a.probes; ++p) {
        const uint32_t u = a.probe[size_t(i) * size_t(a.probes) + size_t(p)];
        const uint64_t first = a.offset[u], last = a.offset[u + 1];
        for (uint64_t base = first; base < last; base += 32) {
            const uint64_t at = base + uint64_t(lane);
            uint64_t candidate = kEmptyKey;
            if (at < last) {
                const uint32_t j = a.cells[at];
                if (j != i) {
                    const float* row = a.points + size_t(j) * size_t(a.d);
                    float s = 0.0f;
                    for (int t = 0; t < a.d; ++t) {
                        const float e = __fsub_rn(x[t], row[t]);
                        s = __fadd_rn(s, __fmul_rn(e, e));
                    }
                    // Squared sums are >= 0 (or +inf): their bits order as the floats do.
                    candidate = (uint64_t(__float_as_uint(s)) << 32) | j;
                }
            }
            while (__any_sync(0xffffffffu, candidate < kth)) {
                const uint64_t v = warpMin(candidate < kth ? candidate : kEmptyKey);
                // Lanes past v's place shift down one; v takes the first of them.
                const uint64_t before = __shfl_up_sync(0xffffffffu, best, 1);
                if (lane < a.k && best > v) best = lane > 0 && before > v ? before : v;
                if (candidate == v) candidate = kEmptyKey;
                kth = __shfl_sync(0xffffffffu, best, a.k - 1);
            }
        }
    }
    if (lane < a.k) {
        const size_t at = size_t(i) * size_t(a.k) + size_t(lane);
        a.nbr[at] = best == kEmptyKey ? 0xffffffffu : uint32_t(best);
        a.sq[at] =
            best == kEmptyKey ? __int_as_float(0x7f800000) : __uint_as_float(uint32_t(best >> 32));
    }
}

// --- the epoch, as polish_epoch.cpp's moveBlockAvx2 computes each lane

__device__ __forceinline__ uint64_t splitMixNext(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// x^b as the CPU's pow8 computes it: exp2(b log2 x) by its short series.
__device__ __forceinline__ float powAsCpu(float x, float b) {
    const int bits = __float_as_int(x);
    int e = int((unsigned(bits) >> 23)) - 127;
    float m = __int_as_float((bits & 0x7FFFFF) | 0x3F800000);
    if (m > 1.41421356f) {
        m = __fmul_rn(m, 0.5f);
        e += 1;
    }
    const float t = __fdiv_rn(__fsub_rn(m, 1.0f), __fadd_rn(m, 1.0f));
    const float t2 = __fmul_rn(t, t);
    float p = __fmaf_rn(0.577078016f, t2, 0.961796694f);
    p = __fmaf_rn(p, t2, 2.88539008f);
    float z = __fmul_rn(b, __fmaf_rn(p, t, __int2float_rn(e)));
    z = fmaxf(fminf(z, 125.0f), -125.0f);
    const float n = rintf(z);
    const float f = __fsub_rn(z, n);
    float q = 1.33335581e-3f;
    q = __fmaf_rn(q, f, 9.61812911e-3f);
    q = __fmaf_rn(q, f, 5.55041087e-2f);
    q = __fmaf_rn(q, f, 2.40226507e-1f);
    q = __fmaf_rn(q, f, 6.93147181e-1f);
    q = __fmaf_rn(q, f, 1.0f);
    // The shift on the unsigned bits, as _mm256_slli_epi32 shifts (a negative int's is undefined).
    return __int_as_float(__float_as_int(q) + int(unsigned(__float2int_rn(n)) << 23));
}

__device__ __forceinline__ float clip4(float v) {
    return fmaxf(fminf(v, 4.0f), -4.0f);
}

__global__ void polishEpochKernel(const PolishEpochArgs a) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= a.stride) return;
    const float xi = a.y[2 * i], yi = a.y[2 * i + 1];
    if (!a.usable[i]) {
        a.next[2 * i] = xi, a.next[2 * i + 1] = yi;
        return;
    }
    const float attract = -2.0f * a.a * a.b;  // as the CPU forms it, in float
    float gx = 0.0f, gy = 0.0f;
    for (int r = 0; r < a.k; ++r) {
        const size_t at = size_t(r) * a.stride + i;
        const uint32_t j = a.nbr[at];
        const float dx = __fsub_rn(xi, a.y[2 * size_t(j)]),
                    dy = __fsub_rn(yi, a.y[2 * size_t(j) + 1]);
        const float d2 = __fmaf_rn(dx, dx, __fmul_rn(dy, dy));
        if (!(d2 > 0.0f)) {  // the CPU adds +0 (which turns a -0 sum into +0)
            gx = __fadd_rn(gx, 0.0f), gy = __fadd_rn(gy, 0.0f);
            continue;
        }
        const float pb = powAsCpu(fmaxf(d2, 1e-30f), a.b);
        float c = __fdiv_rn(__fmul_rn(attract, pb), __fmul_rn(d2, __fmaf_rn(a.a, pb, 1.0f)));
        c = __fmul_rn(c, a.weight[at]);
        gx = __fadd_rn(gx, clip4(__fmul_rn(c, dx)));
        gy = __fadd_rn(gy, clip4(__fmul_rn(c, dy)));
    }
    // The random cells: drawSamples' stream for this cell and epoch.
    uint64_t state = a.seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ULL) ^ (a.epoch << 40);
    const float twoB = 2.0f * a.b;
    float rx = 0.0f, ry = 0.0f;
    for (int s = 0; s < a.negativeSamples; ++s) {
        const uint32_t j = a.keep[__umul64hi(splitMixNext(state), uint64_t(a.kept))];
        const float dx = __fsub_rn(xi, a.y[2 * size_t(j)]),
                    dy = __fsub_rn(yi, a.y[2 * size_t(j) + 1]);
        const float d2 = __fmaf_rn(dx, dx, __fmul_rn(dy, dy));
        if (!(d2 > 0.0f)) {
            rx = __fadd_rn(rx, 0.0f), ry = __fadd_rn(ry, 0.0f);
            continue;
        }
        const float pb = powAsCpu(fmaxf(d2, 1e-30f), a.b);
        const float c = __fdiv_rn(twoB, __fmul_rn(__fadd_rn(0.001f, d2), __fmaf_rn(a.a, pb, 1.0f)));
        rx = __fadd_rn(rx, clip4(__fmul_rn(c, dx)));
        ry = __fadd_rn(ry, clip4(__fmul_rn(c, dy)));
    }
    const float push = __fmul_rn(a.repulsion, a.weights[i]);
    a.next[2 * i] = __fadd_rn(xi, __fmul_rn(a.rate, __fadd_rn(gx, __fmul_rn(push, rx))));
    a.next[2 * i + 1] = __fadd_rn(yi, __fmul_rn(a.rate, __fadd_rn(gy, __fmul_rn(push, ry))));
}

}  // namespace

void launchPolishNeighbours(const PolishNeighbourArgs& a, cudaStream_t stream) {
    if (a.listed == 0) return;
    const size_t blocks = (a.listed + kPolishWarpsPerBlock - 1) / kPolishWarpsPerBlock;
    polishNeighboursKernel<<<unsigned(blocks), 32 * kPolishWarpsPerBlock, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("polishNeighboursKernel");
}

void launchPolishEpoch(const PolishEpochArgs& a, cudaStream_t stream) {
    if (a.stride == 0) return;
    constexpr unsigned kThreads = 256;
    polishEpochKernel<<<unsigned((a.stride + kThreads - 1) / kThreads), kThreads, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("polishEpochKernel");
}

}  // namespace sepal::cuda

// --- the tiled search: a block per (landmark list, up to 128 queries probing it). The list's
// rows pass through shared memory a tile at a time, read by every thread at once (a broadcast);
// each thread holds its query in registers and keeps its k best keys in a sorted local array,
// four candidates' sums in flight for the latency of the additions. Each query's lists of
// its probes are merged afterwards: the k smallest keys of all, as the CPU's one pass keeps.

namespace sepal::cuda {
namespace {

constexpr int kTileCells = 64;

template <int D>
__global__ void __launch_bounds__(kPolishQueriesPerBlock)
    polishTiledKernel(const PolishTiledArgs a) {
    __shared__ float tile[kTileCells][D];
    __shared__ uint32_t tileId[kTileCells];
    const uint32_t u = a.taskList[blockIdx.x];
    const uint64_t listFirst = a.offset[u], listLast = a.offset[u + 1];
    const int count = int(a.taskCount[blockIdx.x]);
    const bool active = int(threadIdx.x) < count;
    const uint64_t item = a.taskFirst[blockIdx.x] + (active ? threadIdx.x : 0);
    const uint32_t query = a.itemQuery[item];
    float x[D];
#pragma unroll
    for (int t = 0; t < D; ++t) x[t] = t < a.d ? a.points[size_t(query) * size_t(a.d) + t] : 0.0f;
    uint64_t best[kPolishMostNeighbours];
    for (int r = 0; r < a.k; ++r) best[r] = kEmptyKey;
    uint64_t kth = kEmptyKey;
    for (uint64_t base = listFirst; base < listLast; base += kTileCells) {
        const int cellsHere = int(min(uint64_t(kTileCells), listLast - base));
        __syncthreads();
        for (int e = threadIdx.x; e < cellsHere * a.d; e += blockDim.x) {
            const int c = e / a.d, t = e - c * a.d;
            const uint32_t j = a.cells[base + uint64_t(c)];
            tile[c][t] = a.points[size_t(j) * size_t(a.d) + t];
            if (t == 0) tileId[c] = j;
        }
        __syncthreads();
        if (!active) continue;
        for (int c0 = 0; c0 < cellsHere; c0 += 4) {
            float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int t = 0; t < D; ++t) {
                if (t < a.d) {
#pragma unroll
                    for (int q = 0; q < 4; ++q) {
                        const float e = __fsub_rn(x[t], tile[min(c0 + q, kTileCells - 1)][t]);
                        s[q] = __fadd_rn(s[q], __fmul_rn(e, e));
                    }
                }
            }
            for (int q = 0; q < 4 && c0 + q < cellsHere; ++q) {
                const uint32_t j = tileId[c0 + q];
                const uint64_t key = (uint64_t(__float_as_uint(s[q])) << 32) | j;
                if (j == query || key >= kth) continue;
                int pos = a.k - 1;
                while (pos > 0 && best[pos - 1] > key) {
                    best[pos] = best[pos - 1];
                    --pos;
                }
                best[pos] = key;
                kth = best[a.k - 1];
            }
        }
    }
    if (!active) return;
    uint64_t* out = a.keys + size_t(a.itemSlot[item]) * size_t(a.k);
    for (int r = 0; r < a.k; ++r) out[r] = best[r];
}

__global__ void polishMergeKernel(const uint64_t* keys, const uint32_t* queries, size_t count,
                                  int probes, int k, uint32_t* nbr, float* sq) {
    const size_t q = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= count) return;
    const uint32_t i = queries[q];
    const uint64_t* lists = keys + size_t(q) * size_t(probes) * size_t(k);
    int at[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int r = 0; r < k; ++r) {
        uint64_t smallest = kEmptyKey;
        int from = -1;
        for (int p = 0; p < probes; ++p)
            if (at[p] < k && lists[p * k + at[p]] < smallest)
                smallest = lists[p * k + at[p]], from = p;
        if (from >= 0) ++at[from];
        const size_t o = size_t(i) * size_t(k) + size_t(r);
        nbr[o] = smallest == kEmptyKey ? 0xffffffffu : uint32_t(smallest);
        sq[o] = smallest == kEmptyKey ? __int_as_float(0x7f800000)
                                      : __uint_as_float(uint32_t(smallest >> 32));
    }
}

}  // namespace

void launchPolishTiledSearch(const PolishTiledArgs& a, cudaStream_t stream) {
    if (a.tasks == 0) return;
    if (a.d <= 32)
        polishTiledKernel<32><<<unsigned(a.tasks), kPolishQueriesPerBlock, 0, stream>>>(a);
    else
        polishTiledKernel<64><<<unsigned(a.tasks), kPolishQueriesPerBlock, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("polishTiledKernel");
}

void launchPolishMergeKeys(const uint64_t* keys, const uint32_t* queries, size_t count, int probes,
                           int k, uint32_t* nbr, float* sq, cudaStream_t stream) {
    if (count == 0) return;
    constexpr unsigned kThreads = 256;
    polishMergeKernel<<<unsigned((count + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
        keys, queries, count, probes, k, nbr, sq);
    SEPAL_CUDA_CHECK_LAUNCH("polishMergeKernel");
}

}  // namespace sepal::cuda

// --- the graph: core's membershipStrengths (umap_layout.cpp) a cell per thread, in double,
// each addition and product rounded alone as the CPU (built without contraction) rounds them.

namespace sepal::cuda {
namespace {

__device__ __forceinline__ double notBelowZero(double v) {
    return 0.0 < v ? v : 0.0;  // std::max(0.0, v)
}

__device__ void membershipAsCpu(const double* dist, int m, double target, float* w) {
    double rho = 0.0;
    for (int r = 0; r < m; ++r)
        if (dist[r] > 0.0) {
            rho = dist[r];
            break;
        }
    double lo = 0.0, hi = 1e300, sigma = 1.0;
    for (int it = 0; it < 64; ++it) {
        double sum = 0.0, slope = 0.0;
        for (int r = 0; r < m; ++r) {
            const double x = notBelowZero(__dsub_rn(dist[r], rho));
            const double e = exp(__ddiv_rn(-x, sigma));
            sum = __dadd_rn(sum, e);
            slope = __dadd_rn(slope, __dmul_rn(e, x));
        }
        if (fabs(__dsub_rn(sum, target)) < 1e-5) break;
        if (sum > target)
            hi = sigma;
        else
            lo = sigma;
        slope = __ddiv_rn(slope, __dmul_rn(sigma, sigma));
        const double newton =
            slope > 0.0 ? __dsub_rn(sigma, __ddiv_rn(__dsub_rn(sum, target), slope)) : -1.0;
        if (hi >= 1e300) {
            const double twice = __dmul_rn(2.0, sigma);
            sigma = newton > sigma ? (twice < newton ? twice : newton) : twice;
        } else {
            sigma = newton > lo && newton < hi ? newton : __dmul_rn(0.5, __dadd_rn(lo, hi));
        }
    }
    for (int r = 0; r < m; ++r)
        w[r] = __double2float_rn(exp(__ddiv_rn(-notBelowZero(__dsub_rn(dist[r], rho)), sigma)));
}

__global__ void polishGraphKernel(const PolishGraphArgs a) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= a.stride) return;
    double dist[kPolishMostNeighbours];
    float w[kPolishMostNeighbours];
    int m = 0;
    while (i < a.n && a.usable[i] && m < a.k && a.nbr[i * size_t(a.k) + size_t(m)] != 0xffffffffu) {
        dist[m] = __dsqrt_rn(double(a.sq[i * size_t(a.k) + size_t(m)]));
        ++m;
    }
    if (m > 0) membershipAsCpu(dist, m, a.target, w);
    float sum = 0.0f;
    for (int r = 0; r < a.k; ++r) {
        const size_t at = size_t(r) * a.stride + i;
        a.graphNbr[at] = r < m ? a.nbr[i * size_t(a.k) + size_t(r)] : uint32_t(i);
        a.weight[at] = r < m ? w[r] : 0.0f;
        if (r < m) sum = __fadd_rn(sum, w[r]);
    }
    a.weights[i] = sum;
}

}  // namespace

void launchPolishGraph(const PolishGraphArgs& a, cudaStream_t stream) {
    if (a.stride == 0) return;
    constexpr unsigned kThreads = 128;
    polishGraphKernel<<<unsigned((a.stride + kThreads - 1) / kThreads), kThreads, 0, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("polishGraphKernel");
}

}  // namespace sepal::cuda
