// The tensor kernel: EmbedSOM with TF32 tensor-core candidates, an exact re-rank, then the fused
// kernel's projection. Same neighbours, bit for bit, as the fused kernel and the CPU backend.
//
// Decomposition: 4 warps per block, one point per thread. Each warp holds its 32 points, centred
// on the landmarks' mean and rounded to TF32, as wmma A fragments in registers; tiles of TW
// landmarks (centred, TF32, shuffled order) stream through shared memory as B, and each 16 x 16
// product (k-steps of 8, float sums) goes to the warp's scratch, from which every lane reads its
// point's row: v_j = |L_j - m|^2 - 2 <x - m, L_j - m>, the squared distance less |x - m|^2.
// Pass 1 keeps, per lane, the smallest v of each of the TW landmark groups (column of the tile,
// one FMNMX per landmark; the shuffle spreads a map's neighbours over the groups). The topnn-th
// smallest group minimum T bounds the topnn-th smallest v from above, since topnn groups have a
// value at or below it. Pass 2 recomputes the products and keeps every landmark with
// v <= T + 2E, where E bounds |v + |x - m|^2 - a_j| (TF32 rounding, float sums, centring and the
// exact distance's own rounding); that set holds every true neighbour, ties included. The
// candidates' exact difference-form distances (dimension order, as the CPU computes them, four
// candidates side by side) are sorted by (distance, index) into the register list, and
// placeFromList projects. The next landmark tile is loaded into registers while the current one
// is multiplied.
// Shared memory: landmark tile TW x (stride + 4) with TW norms and TW landmark indices, 4 warps x
// 32 x (max(TW, stride) + 4) scratch, CAP x 128 candidate landmark indices (16-bit); then
// 20 B x LIST x 128 for the projection: at most 85 KB.
// Limits: stride 8 to 64, topnn <= 33, g < 65536, compute capability 8.0 or later. A point with
// more than CAP candidates (many landmarks at one distance) scans all landmarks exactly instead:
// slower, same result.

#include <mma.h>

#include <cfloat>
#include <climits>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;

__host__ __device__ constexpr int tileWidthFor(int list) {
    return list <= 17 ? 32 : 64;
}
static_assert(kTensorPadding % tileWidthFor(9) == 0 && kTensorPadding % tileWidthFor(33) == 0,
              "the landmark padding must hold whole tiles");

/// Shared-memory layout of one block (sizes in floats unless said).
template <int STRIDE, int LIST>
struct Layout {
    static constexpr int kTile = tileWidthFor(LIST);  // landmarks per tile
    static constexpr int kTileLd = STRIDE + 4;        // tile row, padded against conflicts
    static constexpr int kWide = kTile > STRIDE ? kTile : STRIDE;
    static constexpr int kScratchLd = kWide + 4;             // warp scratch row
    static constexpr int kCapacity = LIST <= 17 ? 64 : 128;  // candidates kept per point
    static constexpr size_t kTileFloats = size_t(kTile) * kTileLd;
    static constexpr size_t kScratchFloats = size_t(kWarps) * 32 * kScratchLd;
    static constexpr size_t kScanBytes =
        (kTileFloats + 2 * kTile + kScratchFloats) * 4 + size_t(kCapacity) * kThreads * 2;
    static constexpr size_t kListBytes = size_t(LIST) * kThreads * 20;
    static constexpr size_t kBytes = kScanBytes > kListBytes ? kScanBytes : kListBytes;
};

/// log2 of a power of two, at compile time.
__host__ __device__ constexpr int log2Of(int n) {
    return n <= 1 ? 0 : 1 + log2Of(n / 2);
}

/// Sorts N (a power of two) values ascending in registers: a bitonic network whose loops have
/// plain counters, so that they unroll fully and every index is a constant.
template <int N>
__device__ __forceinline__ void sortAscending(float (&v)[N]) {
    constexpr int kLog = log2Of(N);
#pragma unroll
    for (int lk = 1; lk <= kLog; ++lk) {
#pragma unroll
        for (int lj = lk - 1; lj >= 0; --lj) {
#pragma unroll
            for (int i = 0; i < N; ++i) {
                const int l = i ^ (1 << lj);
                if (l > i) {
                    const float lo = fminf(v[i], v[l]), hi = fmaxf(v[i], v[l]);
                    const bool up = (i & (1 << lk)) == 0;
                    v[i] = up ? lo : hi;
                    v[l] = up ? hi : lo;
                }
            }
        }
    }
}

/// Blocks per multiprocessor the register allocation must allow: four for the common short lists
/// (occupancy hides the re-rank's load latency), no bound where that would spill heavily.
__host__ __device__ constexpr int minBlocksFor(int stride, int list) {
    return stride <= 32 && list <= 17 ? 4 : 1;
}

template <int STRIDE, int LIST>
__global__ void __launch_bounds__(kThreads, minBlocksFor(STRIDE, LIST))
    tensorKernel(const ProjectionArgs a) {
#if __CUDA_ARCH__ >= 800
    using namespace nvcuda;
    using L = Layout<STRIDE, LIST>;
    constexpr int kTile = L::kTile, kSteps = STRIDE / 8, kVec = STRIDE / 4;
    extern __shared__ float4 shared[];
    float* tile = reinterpret_cast<float*>(shared);              // kTile x kTileLd
    float* tileNorms = tile + L::kTileFloats;                    // kTile
    int* tileIndex = reinterpret_cast<int*>(tileNorms + kTile);  // kTile landmark indices
    float* scratch = tileNorms + 2 * kTile;                      // per warp 32 x kScratchLd
    uint16_t* cand = reinterpret_cast<uint16_t*>(scratch + L::kScratchFloats);  // kCapacity x 128
    float4* lists = shared;  // after the k-NN: the projection's lists

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const size_t p = size_t(blockIdx.x) * kThreads + tid;
    const bool active = p < a.n;
    float* mine = scratch + warp * 32 * L::kScratchLd;

    // Row `lane` of the warp's A: the point less the centre, rounded to TF32.
    bool bad = false;
    float centred2 = 0;
    {
        const float4* src = reinterpret_cast<const float4*>(a.points) + (active ? p : 0) * kVec;
        const float4* centre = reinterpret_cast<const float4*>(a.tensor.centre);
        float4* row = reinterpret_cast<float4*>(mine + lane * L::kScratchLd);
#pragma unroll
        for (int c = 0; c < kVec; ++c) {
            float4 v = active ? src[c] : make_float4(0, 0, 0, 0);
            const float4 m = __ldg(centre + c);
            const float x0 = detail::finiteOrZero(v.x, bad) - m.x;
            const float x1 = detail::finiteOrZero(v.y, bad) - m.y;
            const float x2 = detail::finiteOrZero(v.z, bad) - m.z;
            const float x3 = detail::finiteOrZero(v.w, bad) - m.w;
            centred2 = fmaf(x0, x0, fmaf(x1, x1, fmaf(x2, x2, fmaf(x3, x3, centred2))));
            row[c] = make_float4(wmma::__float_to_tf32(x0), wmma::__float_to_tf32(x1),
                                 wmma::__float_to_tf32(x2), wmma::__float_to_tf32(x3));
        }
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa[2][kSteps];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int ks = 0; ks < kSteps; ++ks)
            wmma::load_matrix_sync(fa[mt][ks], mine + mt * 16 * L::kScratchLd + ks * 8,
                                   L::kScratchLd);
    __syncwarp();  // the scratch now takes the products

    // The next tile waits in registers while the current one is multiplied (its loads' latency
    // hides behind the tensor-core work).
    constexpr int kLoads = (kTile * kVec + kThreads - 1) / kThreads;
    float4 next[kLoads];
    float nextNorm = 0;
    int nextIndex = 0;
    auto fetch = [&](int t0) {
        const float4* rows = reinterpret_cast<const float4*>(a.tensor.rows) + size_t(t0) * kVec;
#pragma unroll
        for (int i = 0; i < kLoads; ++i) {
            const int e = tid + i * kThreads;
            if (e < kTile * kVec) next[i] = __ldg(rows + e);
        }
        if (tid < kTile) {
            nextNorm = __ldg(a.tensor.norms + t0 + tid);
            nextIndex = __ldg(a.tensor.perm + t0 + tid);
        }
    };
    fetch(0);
    // The products of tile t0 in the warp's scratch: row `lane` holds this lane's point.
    auto products = [&](int t0) {
        __syncthreads();  // every warp is done with the previous tile
#pragma unroll
        for (int i = 0; i < kLoads; ++i) {
            const int e = tid + i * kThreads;
            if (e < kTile * kVec)
                reinterpret_cast<float4*>(tile + (e / kVec) * L::kTileLd)[e % kVec] = next[i];
        }
        if (tid < kTile) tileNorms[tid] = nextNorm, tileIndex[tid] = nextIndex;
        __syncthreads();
        fetch(t0 + kTile < a.tensor.gPad ? t0 + kTile : 0);  // tile 0 again for the next pass
#pragma unroll
        for (int nt = 0; nt < kTile / 16; ++nt) {
            wmma::fragment<wmma::accumulator, 16, 16, 8, float> top, bottom;
            wmma::fill_fragment(top, 0.0f);
            wmma::fill_fragment(bottom, 0.0f);
#pragma unroll
            for (int ks = 0; ks < kSteps; ++ks) {
                wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>
                    fb;
                wmma::load_matrix_sync(fb, tile + nt * 16 * L::kTileLd + ks * 8, L::kTileLd);
                wmma::mma_sync(top, fa[0][ks], fb, top);
                wmma::mma_sync(bottom, fa[1][ks], fb, bottom);
            }
            wmma::store_matrix_sync(mine + nt * 16, top, L::kScratchLd, wmma::mem_row_major);
            wmma::store_matrix_sync(mine + 16 * L::kScratchLd + nt * 16, bottom, L::kScratchLd,
                                    wmma::mem_row_major);
        }
        __syncwarp();
    };
    const float4* dots = reinterpret_cast<const float4*>(mine + lane * L::kScratchLd);
    const float4* norms = reinterpret_cast<const float4*>(tileNorms);
    // v_j for column c of the tile: the squared distance less |x - m|^2.
    auto value = [&](int c) {
        const float4 dv = dots[c >> 2], nv = norms[c >> 2];
        const int q = c & 3;
        return fmaf(-2.0f,
                    q == 0   ? dv.x
                    : q == 1 ? dv.y
                    : q == 2 ? dv.z
                             : dv.w,
                    q == 0   ? nv.x
                    : q == 1 ? nv.y
                    : q == 2 ? nv.z
                             : nv.w);
    };

    // Pass 1: an upper bound on the topnn-th smallest v.
    float bound = -FLT_MAX;
    {
        float groupMin[kTile];
#pragma unroll
        for (int i = 0; i < kTile; ++i) groupMin[i] = FLT_MAX;
        for (int t0 = 0; t0 < a.tensor.gPad; t0 += kTile) {
            products(t0);
#pragma unroll
            for (int c = 0; c < kTile; ++c) groupMin[c] = fminf(groupMin[c], value(c));
            __syncwarp();  // before the next tile's products overwrite the scratch
        }
        sortAscending<kTile>(groupMin);
        // The topnn-th entry as the largest of the first topnn (a select chain would become an
        // indexed load from local memory).
#pragma unroll
        for (int i = 0; i < kTile; ++i) bound = fmaxf(bound, i < a.topnn ? groupMin[i] : -FLT_MAX);
    }
    // E: TF32 inputs (relative 2^-11 each) and tensor-core sums give |dv error| <= ~2^-10 |x - m|
    // |L - m|, so v is off by at most ~2^-9 |x - m| R; the float distances (CPU and ours) and
    // the centring add (2d + 16) 2^-24 (|x - m| + R)^2 at most. Both taken four times over.
    const float r = sqrtf(centred2), span = r + a.tensor.radius;
    const float margin =
        2.0f * (0x1p-7f * r * a.tensor.radius + float(2 * a.dim + 16) * 0x1p-22f * span * span);
    const float threshold = bound + margin;
    const bool trusted = threshold < FLT_MAX;  // overflowing data: scan exactly below

    // Pass 2: every landmark position that may hold a true neighbour.
    int count = 0;
    if (trusted) {
        for (int t0 = 0; t0 < a.tensor.gPad; t0 += kTile) {
            products(t0);
#pragma unroll
            for (int c = 0; c < kTile; ++c) {
                if (value(c) <= threshold) {
                    if (count < L::kCapacity) cand[count * kThreads + tid] = uint16_t(tileIndex[c]);
                    ++count;
                }
            }
            __syncwarp();
        }
    }

    // Exact re-rank in the reference's arithmetic.
    float4 x[kVec];
    {
        const float4* src = reinterpret_cast<const float4*>(a.points) + (active ? p : 0) * kVec;
        bool ignored = false;
#pragma unroll
        for (int c = 0; c < kVec; ++c) {
            const float4 v = active ? src[c] : make_float4(0, 0, 0, 0);
            x[c] =
                make_float4(detail::finiteOrZero(v.x, ignored), detail::finiteOrZero(v.y, ignored),
                            detail::finiteOrZero(v.z, ignored), detail::finiteOrZero(v.w, ignored));
        }
    }
    const float4* landmarks = reinterpret_cast<const float4*>(a.landmarks);
    // Squared distances to four landmarks side by side (independent chains hide latency).
    auto distances4 = [&](const int(&j)[4], float(&acc)[4]) {
        const float4* l[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) l[q] = landmarks + size_t(j[q]) * kVec, acc[q] = 0;
#pragma unroll
        for (int c = 0; c < kVec; ++c) {
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const float4 lv = __ldg(l[q] + c);
                float e = x[c].x - lv.x;
                acc[q] = fmaf(e, e, acc[q]);
                e = x[c].y - lv.y;
                acc[q] = fmaf(e, e, acc[q]);
                e = x[c].z - lv.z;
                acc[q] = fmaf(e, e, acc[q]);
                e = x[c].w - lv.w;
                acc[q] = fmaf(e, e, acc[q]);
            }
        }
    };
    float bd[LIST];
    int bi[LIST];
#pragma unroll
    for (int i = 0; i < LIST; ++i) bd[i] = FLT_MAX, bi[i] = INT_MAX;
    const bool exhaustive = !(trusted && count <= L::kCapacity);
    const int total = exhaustive ? a.g : count;
    for (int e = 0; e < total; e += 4) {
        int j[4];
        float dist[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int f = min(e + q, total - 1);
            j[q] = exhaustive ? f : int(cand[f * kThreads + tid]);
        }
        distances4(j, dist);
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if (e + q < total && detail::lexLess(dist[q], j[q], bd[LIST - 1], bi[LIST - 1]))
                detail::insertByIndex<LIST>(bd, bi, dist[q], j[q]);
    }

    if (a.tensorStats) {
        const int exact = __reduce_add_sync(0xffffffffu, active ? total : 0);
        const int scans = __reduce_add_sync(0xffffffffu, int(exhaustive && active));
        if (lane == 0) {
            atomicAdd(a.tensorStats, (unsigned long long)exact);
            atomicAdd(a.tensorStats + 1, (unsigned long long)scans);
        }
    }

    if (a.out) __syncthreads();  // the scan's memory is reused for the lists (uniform)
    detail::placeFromList<LIST, kThreads>(a, p, active, bad, bd, bi, lists);
#endif
}

template <int STRIDE, int LIST>
void launchOne(const ProjectionArgs& a, cudaStream_t stream) {
    detail::launchPerPoint<tensorKernel<STRIDE, LIST>>(a, kThreads, Layout<STRIDE, LIST>::kBytes,
                                                       stream, "launch of tensorKernel");
}

template <int STRIDE>
void launchForStride(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.topnn <= 9) return launchOne<STRIDE, 9>(a, stream);
    if (a.topnn <= 17) return launchOne<STRIDE, 17>(a, stream);
    return launchOne<STRIDE, 33>(a, stream);
}

/// Compute capability major of the current device (0 when it cannot be read).
int deviceMajor() {
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return major;
}

}  // namespace

bool tensorSupports(int stride, int topnn) {
    if (topnn > 33) return false;
    if (stride != 8 && stride != 16 && stride != 32 && stride != 64) return false;
    static const int major = deviceMajor();
    return major >= 8;
}

void launchTensor(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    detail::withStride<8, 16, 32, 64>(
        a.stride, [&](auto s) { launchForStride<decltype(s)::value>(a, stream); });
}

}  // namespace sepal::cuda
