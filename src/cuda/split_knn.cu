// The device half of the split FP16 candidates (split_knn.h). A block of 4 warps takes 128
// queries; each warp holds its 32 queries' split A fragments in registers for the whole scan and
// streams the references through shared memory in tiles of 64 (B fragments laid out once per
// build, copied asynchronously one tile ahead). Per 32 references a lane holds 32 products; one
// fused multiply-add and one comparison against its row's threshold decide whether any needs a
// look. Only then (rarely, once the lists fill) does the warp pass its values through a scratch,
// each lane visiting just the passing values of its own query, found from its quad's bit masks.

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>

#include "cuda/cuda_error.h"
#include "cuda/knn_device.cuh"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/split_knn.h"
#include "cuda/split_mma.cuh"
#include "cuda/tile_keys.cuh"

namespace sepal::cuda {
namespace {

constexpr int kWarps = 4;                // warps of a block, 32 queries each
constexpr int kRefTile = kSplitRefTile;  // references per shared-memory tile (2 parts of 32)
constexpr int kScratchStride = 40;       // floats per scratch row: conflict-free float2 stores
constexpr int kFragmentBlock = 256;      // threads of the layout kernel
static_assert(kWarps * 32 == kKnnBlockQueries && kRefTile == kKnnPartTile,
              "the parts' layout is made for these blocks and tiles");

/// The parts of a layout (core/knn/knn_part_layout.h) as the candidate kernel reads them.
struct SplitPartsArgs {
    const uint32_t* order;        // positions: the point at each
    const int* partTiles;         // parts + 1
    const float* partCentre;      // parts x stride
    const float* partRadius;      // parts (negative: no usable row)
    const float* blockCentre;     // blocks x stride
    const float* blockRadius;     // blocks (negative: no usable row)
    const int* blockPart;         // blocks
    int parts;                    // at most kMaxKnnParts
    unsigned long long* scanned;  // tiles the blocks scanned, added up
};

/// Lays out the rows times `scale` as m16n8k16 FP16 B fragments: the registers (hi b0, hi b1,
/// lo b0, lo b1), each two values, of group j of 8 references, k-step s (16 columns) and lane at
/// ((j kSteps) + s) 32 + lane; rows past n are zeros.
__global__ void fragmentKernel(const float* __restrict__ rows, size_t n, size_t groups, int kSteps,
                               int stride, float scale, float4* __restrict__ out) {
#if __CUDA_ARCH__ >= 800
    const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= groups * size_t(kSteps) * 32) return;
    const int lane = int(e % 32), s = int(e / 32 % size_t(kSteps)), t4 = lane & 3;
    const size_t ref = e / 32 / size_t(kSteps) * 8 + size_t(lane >> 2);
    const float* row = rows + ref * size_t(stride);
    const auto at = [&](int col) { return ref < n ? row[col] : 0.0f; };
    // b0: k = 2 t4 and the next, b1: k = 2 t4 + 8 and the next.
    const int col = 16 * s + 2 * t4;
    uint32_t h0, l0, h1, l1;
    splitHalf2(at(col) * scale, at(col + 1) * scale, h0, l0);
    splitHalf2(at(col + 8) * scale, at(col + 9) * scale, h1, l1);
    out[e] = make_float4(__uint_as_float(h0), __uint_as_float(h1), __uint_as_float(l0),
                         __uint_as_float(l1));
#endif
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// Inserts reference `ref` at key s into a query's list (ascending; C entries at most) and
/// lowers its threshold: the C-th key, or the k-th plus the margin, whichever is smaller.
template <int C>
__device__ __forceinline__ void insertCandidate(float (&key)[C], uint32_t (&id)[C], int& count,
                                                float& tau, float s, uint32_t ref, int k,
                                                float margin) {
    insertAscending<C>(key, id, count, s, ref);
    float t = count == C ? key[C - 1] : INFINITY;
    if (count >= k) t = fminf(t, key[k - 1] + margin);
    tau = fminf(tau, t);
}
#endif

/// Shared memory of a block: two reference tiles (fragments and norms), a scratch per warp,
/// the warps' thresholds, and with parts their bounds and the block's reductions.
template <int KS, bool PARTS>
struct SplitLayout {
    static constexpr int kTileFragments = kRefTile / 8 * KS * 32;  // float4 per tile
    static constexpr size_t kFragmentBytes = 2 * kTileFragments * sizeof(float4);
    static constexpr size_t kNormBytes = 2 * kRefTile * sizeof(float);
    static constexpr size_t kScratchBytes = kWarps * 32 * kScratchStride * sizeof(float);
    static constexpr size_t kTauBytes = kWarps * 32 * sizeof(float);
    static constexpr size_t kPartsBytes = PARTS ? (kMaxKnnParts + 4 * kWarps) * sizeof(float) : 0;
    static constexpr size_t kBytes =
        kFragmentBytes + kNormBytes + kScratchBytes + kTauBytes + kPartsBytes;
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// The block's part to scan next: the least bound among bound[0 .. parts) (ties to the lower
/// part), after setting `scanned`'s to infinity, or -1 where none is below `limit` once the
/// block's largest threshold is known: `threshold` is the lane's query's exact-key threshold
/// (-infinity for no query), and a part whose bound is above the block's largest cannot hold
/// a point any query would take. Every thread of the block calls it.
__device__ __forceinline__ int nextPart(float* bound, int parts, int scanned, float threshold,
                                        unsigned long long* reduceKey, float* reduceThreshold) {
    unsigned long long best = ~0ull;
    for (int p = threadIdx.x; p < parts; p += blockDim.x) {
        if (p == scanned) bound[p] = INFINITY;  // written and read by this thread only
        // Bounds are never negative, so their bits order as the floats do.
        const unsigned long long key =
            (static_cast<unsigned long long>(__float_as_uint(bound[p])) << 32) | unsigned(p);
        if (bound[p] != INFINITY && key < best) best = key;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long other = __shfl_xor_sync(0xffffffffu, best, o);
        best = other < best ? other : best;
        threshold = fmaxf(threshold, __shfl_xor_sync(0xffffffffu, threshold, o));
    }
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        reduceKey[warp] = best;
        reduceThreshold[warp] = threshold;
    }
    __syncthreads();
    for (int w = 0; w < kWarps; ++w) {
        best = reduceKey[w] < best ? reduceKey[w] : best;
        threshold = fmaxf(threshold, reduceThreshold[w]);
    }
    __syncthreads();  // the next call rewrites the reductions
    if (best == ~0ull) return -1;
    // The threshold's float sum (tau + |a|^2) and roundings: a relative slack far above them.
    const float limit = threshold + fabsf(threshold) * 1e-5f;
    return __uint_as_float(unsigned(best >> 32)) > limit ? -1 : int(best & 0xffffffffu);
}
#endif

/// Per query q0 + i (i < qn): its C best references by v = |b|^2 - 2 a.b, ascending, and the
/// least exact key of any point left out. PARTS: queries and references are the layout's
/// positions; the block scans its own part, then the parts it may reach, nearest first (a part
/// left out holds no point any query of the block would have taken, so the bound stays true);
/// the candidates name the points.
template <int KS, int C, bool PARTS>
__global__ void __launch_bounds__(kWarps * 32, 4)
    splitCandidateKernel(const SplitPartsArgs parts, const float* __restrict__ rows, int kStride,
                         float scale, const float4* __restrict__ fragments,
                         const float* __restrict__ norm2, const double* __restrict__ ownNorm2,
                         const double* __restrict__ error, const float* __restrict__ margins,
                         int nPad, int q0, int qn, int k, double keyScale, double relSlack,
                         double absSlack, float* __restrict__ outKey, uint32_t* __restrict__ outIdx,
                         int* __restrict__ outCount, double* __restrict__ outLeftOut) {
#if __CUDA_ARCH__ >= 800
    using Layout = SplitLayout<KS, PARTS>;
    // v = |b|^2 - 2 a.b from the products of the scaled operands.
    const float minusTwoOverScale2 = -2.0f / (scale * scale);
    extern __shared__ float4 shared[];
    float4* tiles = shared;
    float* tileNorm = reinterpret_cast<float*>(shared + 2 * Layout::kTileFragments);
    float* scratch = tileNorm + 2 * kRefTile;
    float* tauShared = scratch + kWarps * 32 * kScratchStride;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, gq = lane >> 2, t4 = lane & 3;
    scratch += warp * 32 * kScratchStride;
    tauShared += warp * 32;
    const int warpFirst = (blockIdx.x * kWarps + warp) * 32;  // within the batch
    const int mine = warpFirst + lane;
    const bool active = mine < qn && (!PARTS || parts.order[q0 + mine] != kNoPoint);
    const int query = q0 + mine;

    // The warp's 32 queries as split A fragments, scaled: register r holds row 16 mt + gq (+ 8
    // for odd r), columns 16 ks + 2 t4 and the next (+ 8 for r >= 2).
    uint32_t aHi[2][KS][4], aLo[2][KS][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int ks = 0; ks < KS; ++ks)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const int row = warpFirst + 16 * mt + gq + 8 * (r & 1);
                const float* x = rows + size_t(q0 + (row < qn ? row : 0)) * kStride;
                const int col = 16 * ks + 2 * t4 + 8 * (r >> 1);
                const float x0 = row < qn ? x[col] * scale : 0.0f;
                const float x1 = row < qn ? x[col + 1] * scale : 0.0f;
                splitHalf2(x0, x1, aHi[mt][ks][r], aLo[mt][ks][r]);
            }

    float key[C];
    uint32_t id[C];
    int count = 0;
    // This lane's query's threshold; rows past the batch take nothing (no needless looks).
    float tau = active ? INFINITY : -INFINITY;
    const float margin = active ? margins[query] : 0.0f;
    float rowTau[4];  // the thresholds of rows gq + 8 r
    tauShared[lane] = tau;
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 4; ++r) rowTau[r] = tauShared[gq + 8 * r];
    __syncwarp();

    // 32 references from `first` on: their B fragments and norms.
    const auto scanPart = [&](const float4* partFragments, const float* partNorms, int first) {
        float acc[2][4][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[mt][nt][r] = 0.0f;
#pragma unroll
        for (int ks = 0; ks < KS; ++ks)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
                const float4 b = partFragments[(nt * KS + ks) * 32 + lane];
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) splitMma(acc[mt][nt], aHi[mt][ks], aLo[mt][ks], b);
            }
        // Which values pass their row's threshold: byte r of `passing` for row gq + 8 r,
        // bit 2 nt + c for column 8 nt + 2 t4 + c.
        uint32_t passing = 0;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
            const float2 nb = *reinterpret_cast<const float2*>(partNorms + 8 * nt + 2 * t4);
#pragma unroll
            for (int mt = 0; mt < 2; ++mt) {
                float* a = acc[mt][nt];
                a[0] = fmaf(minusTwoOverScale2, a[0], nb.x);
                a[1] = fmaf(minusTwoOverScale2, a[1], nb.y);
                a[2] = fmaf(minusTwoOverScale2, a[2], nb.x);
                a[3] = fmaf(minusTwoOverScale2, a[3], nb.y);
                const int low = 16 * mt + 2 * nt, high = low + 8;
                passing |= uint32_t(a[0] < rowTau[2 * mt]) << low;
                passing |= uint32_t(a[1] < rowTau[2 * mt]) << (low + 1);
                passing |= uint32_t(a[2] < rowTau[2 * mt + 1]) << high;
                passing |= uint32_t(a[3] < rowTau[2 * mt + 1]) << (high + 1);
            }
        }
        if (!__any_sync(0xffffffffu, passing != 0)) return;
            // Rarely: through the scratch (row 16 mt + gq (+ 8), column 8 nt + 2 t4), each lane
            // visiting only its own row's passing values, found from the quad's masks.
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
                float* at = scratch + (16 * mt + gq) * kScratchStride + 8 * nt + 2 * t4;
                *reinterpret_cast<float2*>(at) = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
                *reinterpret_cast<float2*>(at + 8 * kScratchStride) =
                    make_float2(acc[mt][nt][2], acc[mt][nt][3]);
            }
        __syncwarp();
        // This lane's row, lane = 8 r + g, is row g + 8 r of the quad g's lanes.
        const int g = lane & 7, r = lane >> 3;
        const float* row = scratch + lane * kScratchStride;
#pragma unroll
        for (int src = 0; src < 4; ++src) {
            uint32_t bits = (__shfl_sync(0xffffffffu, passing, 4 * g + src) >> (8 * r)) & 0xffu;
            while (active && bits) {
                const int bit = __ffs(bits) - 1;
                bits &= bits - 1;
                const int col = 8 * (bit >> 1) + 2 * src + (bit & 1);
                const float v = row[col];
                if (v < tau && first + col != query)
                    insertCandidate<C>(key, id, count, tau, v, uint32_t(first + col), k, margin);
            }
        }
        tauShared[lane] = tau;
        __syncwarp();
#pragma unroll
        for (int j = 0; j < 4; ++j) rowTau[j] = tauShared[gq + 8 * j];
        __syncwarp();
    };
    constexpr int kPartFragments = 4 * KS * 32;  // float4 per 32 references
    const int tileCount = nPad / kRefTile;
    // Tiles first, first + 1, ... (modulo the tiles), run of them.
    const auto scanTiles = [&](int first, int run) {
        forEachReferenceTile(
            run,
            [&](int i) {
                copyReferenceTile(tiles, tileNorm, fragments, norm2, (first + i) % tileCount, i & 1,
                                  Layout::kTileFragments, kWarps * 32);
            },
            [&](int i, int buffer) {
                const int tileFirst = ((first + i) % tileCount) * kRefTile;
#pragma unroll 1
                for (int half = 0; half < kRefTile / 32; ++half)
                    scanPart(tiles + buffer * Layout::kTileFragments + half * kPartFragments,
                             tileNorm + buffer * kRefTile + 32 * half, tileFirst + 32 * half);
            });
    };
    if constexpr (PARTS) {
        // The bound of each part: the least squared distance between the block's ball and the
        // part's (infinity where either holds no usable row), shrunk by a relative slack that
        // covers the float sums, the root and the subtractions.
        // After the warps' thresholds (tauShared is this warp's row of them).
        float* bound = tileNorm + 2 * kRefTile + kWarps * 32 * (kScratchStride + 1);
        auto* reduceKey = reinterpret_cast<unsigned long long*>(bound + kMaxKnnParts);
        float* reduceThreshold = reinterpret_cast<float*>(reduceKey + kWarps);
        const int ball = (q0 + int(blockIdx.x) * kWarps * 32) / (kWarps * 32);
        const float ownRadius = parts.blockRadius[ball];
        const float* ownCentre = parts.blockCentre + size_t(ball) * kStride;
        for (int p = threadIdx.x; p < parts.parts; p += blockDim.x) {
            const float radius = parts.partRadius[p];
            float b = INFINITY;
            if (ownRadius >= 0.0f && radius >= 0.0f) {
                const float* centre = parts.partCentre + size_t(p) * kStride;
                float s = 0.0f;
                for (int c = 0; c < kStride; ++c) {
                    const float t = ownCentre[c] - centre[c];
                    s = fmaf(t, t, s);
                }
                const float gap = sqrtf(s) * (1.0f - 1e-5f) - ownRadius - radius;
                b = gap > 0.0f ? gap * gap * (1.0f - 1e-5f) : 0.0f;
            }
            bound[p] = b;
        }
        __syncthreads();
        const float own = active ? float(ownNorm2[query]) : 0.0f;
        unsigned long long scanned = 0;  // the block's tiles, added to parts.scanned once
        for (int part = parts.blockPart[ball]; part >= 0;) {
            const int first = parts.partTiles[part];
            const int tilesOfPart = parts.partTiles[part + 1] - first;
            if (tilesOfPart > 0) scanTiles(first, tilesOfPart);
            scanned += static_cast<unsigned long long>(tilesOfPart);
            // The lane's exact-key threshold: a point with v >= tau has |x - y|^2 >= tau + |a|^2
            // less the row's error, so tau + |a|^2 is above what the left-out bound needs.
            const float threshold = active ? tau + own : -INFINITY;
            part = nextPart(bound, parts.parts, part, threshold, reduceKey, reduceThreshold);
        }
        if (threadIdx.x == 0) atomicAdd(parts.scanned, scanned);
    } else {
        // The block's own queries' tile first: sorted data finds near neighbours early.
        scanTiles(int((size_t(q0) + size_t(blockIdx.x) * kWarps * 32) / kRefTile) % tileCount,
                  tileCount);
    }
    if (!active) {
        if (PARTS && mine < qn) {  // padding: no candidates, nothing proven
            outCount[mine] = 0;
            outLeftOut[mine] = -INFINITY;
        }
        return;
    }
    for (int j = 0; j < count; ++j) {
        outKey[size_t(mine) * C + j] = key[j];
        outIdx[size_t(mine) * C + j] = PARTS ? parts.order[id[j]] : id[j];
    }
    outCount[mine] = count;
    outLeftOut[mine] = tau == INFINITY ? double(INFINITY)
                                       : (double(tau) + ownNorm2[query] - error[query]) * keyScale *
                                                 (1.0 - relSlack) -
                                             absSlack;
#else
    // Built without the tensor cores' code for this device: no candidates, none proven, so the
    // difference form takes every query.
    const int mine = (blockIdx.x * kWarps + (threadIdx.x >> 5)) * 32 + (threadIdx.x & 31);
    if (mine < qn) {
        outCount[mine] = 0;
        outLeftOut[mine] = -INFINITY;
    }
#endif
}

/// The candidate kernel for the k-steps, list length and parts.
template <int KS, int C, bool PARTS>
void launchSplit(const SplitPartsArgs& parts, const float* rows, int stride, float scale,
                 const float4* fragments, const float* norm2, const double* ownNorm2,
                 const double* error, const float* margins, int nPad, int q0, int qn, int k,
                 double keyScale, double relSlack, double absSlack, float* key, uint32_t* idx,
                 int* count, double* leftOut) {
    constexpr auto kernel = splitCandidateKernel<KS, C, PARTS>;
    const size_t bytes = SplitLayout<KS, PARTS>::kBytes;
    detail::allowSharedBytes<kernel>(bytes);
    const int blocks = (qn + kWarps * 32 - 1) / (kWarps * 32);
    kernel<<<blocks, kWarps * 32, bytes>>>(parts, rows, stride, scale, fragments, norm2, ownNorm2,
                                           error, margins, nPad, q0, qn, k, keyScale, relSlack,
                                           absSlack, key, idx, count, leftOut);
    SEPAL_CUDA_CHECK_LAUNCH("splitCandidateKernel");
}

}  // namespace

SplitKnnCandidates::SplitKnnCandidates(const SplitKnnInput& in)
    : m_nPad((in.n + kRefTile - 1) / kRefTile * kRefTile),
      m_stride(in.stride),
      m_scale(in.scale),
      m_keyScale(in.keyScale),
      m_relSlack(in.relSlack),
      m_absSlack(in.absSlack) {
    uploadVector(m_rows, in.rows);
    // Padding references: an infinite norm is never a candidate.
    std::vector<float> norm2(in.norm2);
    norm2.resize(m_nPad, INFINITY);
    uploadVector(m_norm2, norm2);
    uploadVector(m_ownNorm2, in.ownNorm2);
    uploadVector(m_error, in.error);
    uploadVector(m_margin, in.margin);
    const int kSteps = m_stride / 16;
    const size_t groups = m_nPad / 8, total = groups * size_t(kSteps) * 32;
    m_fragments.reserve(total);
    const unsigned blocks = unsigned((total + kFragmentBlock - 1) / kFragmentBlock);
    fragmentKernel<<<blocks, kFragmentBlock>>>(m_rows.get(), in.n, groups, kSteps, m_stride,
                                               m_scale, m_fragments.get());
    SEPAL_CUDA_CHECK_LAUNCH("fragmentKernel");
}

SplitKnnDevice SplitKnnCandidates::device() const {
    return SplitKnnDevice{m_rows.get(), m_fragments.get(), m_norm2.get(),
                          m_nPad,       m_stride,          m_scale};
}

void SplitKnnCandidates::useParts(const KnnPartLayout& layout) {
    uploadVector(m_order, layout.order);
    uploadVector(m_partTiles, layout.partTiles);
    uploadVector(m_partCentre, layout.partCentre);
    uploadVector(m_partRadius, layout.partRadius);
    uploadVector(m_blockCentre, layout.blockCentre);
    uploadVector(m_blockRadius, layout.blockRadius);
    uploadVector(m_blockPart, layout.blockPart);
    m_parts = layout.parts();
    m_scanned.reserve(1);
    SEPAL_CUDA_CHECK(cudaMemset(m_scanned.get(), 0, sizeof(unsigned long long)));
}

uint64_t SplitKnnCandidates::scannedTiles() const {
    if (m_parts == 0) return 0;
    unsigned long long tiles = 0;
    SEPAL_CUDA_CHECK(cudaMemcpy(&tiles, m_scanned.get(), sizeof(tiles), cudaMemcpyDeviceToHost));
    return tiles;
}

bool SplitKnnCandidates::deviceTakes() {
    int device = 0, major = 0;
    SEPAL_CUDA_CHECK(cudaGetDevice(&device));
    SEPAL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 8;
}

void SplitKnnCandidates::candidates(int q0, int qn, int k, int C, float* key, uint32_t* idx,
                                    int* count, double* leftOut) const {
    using Launch = void (*)(const SplitPartsArgs&, const float*, int, float, const float4*,
                            const float*, const double*, const double*, const float*, int, int, int,
                            int, double, double, double, float*, uint32_t*, int*, double*);
    // [k-steps - 1][list of 64][parts]
    static constexpr Launch kLaunches[4][2][2] = {
        {{launchSplit<1, 32, false>, launchSplit<1, 32, true>},
         {launchSplit<1, 64, false>, launchSplit<1, 64, true>}},
        {{launchSplit<2, 32, false>, launchSplit<2, 32, true>},
         {launchSplit<2, 64, false>, launchSplit<2, 64, true>}},
        {{launchSplit<3, 32, false>, launchSplit<3, 32, true>},
         {launchSplit<3, 64, false>, launchSplit<3, 64, true>}},
        {{launchSplit<4, 32, false>, launchSplit<4, 32, true>},
         {launchSplit<4, 64, false>, launchSplit<4, 64, true>}}};
    const Launch launch = kLaunches[m_stride / 16 - 1][C == 64 ? 1 : 0][m_parts > 0 ? 1 : 0];
    const SplitPartsArgs parts{
        m_order.get(),       m_partTiles.get(),   m_partCentre.get(), m_partRadius.get(),
        m_blockCentre.get(), m_blockRadius.get(), m_blockPart.get(),  m_parts,
        m_scanned.get()};
    launch(parts, m_rows.get(), m_stride, m_scale, m_fragments.get(), m_norm2.get(),
           m_ownNorm2.get(), m_error.get(), m_margin.get(), int(m_nPad), q0, qn, k, m_keyScale,
           m_relSlack, m_absSlack, key, idx, count, leftOut);
}

}  // namespace sepal::cuda
