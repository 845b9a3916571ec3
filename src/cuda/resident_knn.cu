// The resident k-NN: the tensor kernel's TF32 candidates and exact re-rank, with every landmark
// held in shared memory, writing sorted neighbour lists for a separate projection
// (table_projection.cu). Same neighbours, bit for bit, as the fused kernel and the CPU backend.
//
// Decomposition: one block per multiprocessor (16, 8 or 4 warps, as many as shared memory
// allows), persistent: each warp takes tiles of 32 points until none are left, so the block
// loads the landmarks once and meets at no barrier after that.
// Shared memory: the landmarks as TF32 mma.sync B fragments in index order (TensorLandmarks,
// unshuffled) with their centred norms, the exact rows (unpadded: see the re-rank), and per warp
// a scratch area (the point rows while they are staged, then 32 x 32 products, then the output
// lists) and the candidates' indices.
// Per tile of points: v_j = |L_j - m|^2 - 2 <x - m, L_j - m> by m16n8k8 TF32 products. Pass 1
// keeps the two smallest v of 16 landmark groups per point in the accumulators' registers; the
// topnn-th smallest of those 32 values T bounds the topnn-th smallest v from above (it is the v
// of a landmark, and topnn landmarks have a v at or below it). Pass 2 computes the products
// again, 32 landmarks at a time, transposes them through the scratch so that each lane reads its
// own point's row, and keeps in index order every landmark with v <= T + 2E (E as in the tensor
// kernel: TF32 rounding, float sums, centring). The re-rank computes the candidates'
// difference-form distances in dimension order, with lanes staggered so that their reads of
// random rows do not collide in the banks, and inserts them in index order, so ties stay ordered
// by index as in the fused kernel. A point with more candidates than kCapacity, or a bound that
// overflowed, scans every landmark exactly.
// Limits: stride 8 to 64, topnn <= 17, the landmarks must fit in shared memory
// (residentKnnSharedBytes), compute capability 8.0 or later (kernel_limits.h).

#include <cfloat>
#include <climits>
#include <cstdint>

#include "cuda/chunk_passes.cuh"
#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/knn_device.cuh"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kMaxWarps = 16;
constexpr int kCapacity = 64;  // candidates kept per point (21.4 on average at the headline)
using detail::kChunk;

/// Shared-memory layout of one instantiation, in floats (all offsets multiples of 4).
struct ResidentLayout {
    int gPad = 0, row = 0, scratch = 0, warps = 0;
    size_t frags = 0, norms = 0, rows = 0, perWarp = 0, total = 0;

    ResidentLayout(int g, int stride, int list, int warpCount) {
        gPad = (g + kTensorPadding - 1) / kTensorPadding * kTensorPadding;
        row = tensorStride(stride);
        const int stage = 32 * (row + 4), chunk = 32 * kChunk, lists = 2 * 32 * list;
        scratch = stage > chunk ? stage : chunk;
        if (lists > scratch) scratch = lists;
        warps = warpCount;
        frags = 0;
        norms = frags + size_t(gPad) * row;
        rows = norms + size_t(gPad);
        perWarp = size_t(scratch) + kCapacity * 32 / 2;  // candidates: 16-bit indices
        total = rows + size_t(g) * stride + size_t(warps) * perWarp;
    }
    size_t bytes() const { return total * 4; }
};

/// Warps per block for this shape: the most of 16, 8, 4 whose layout fits (0: none does).
int warpsFor(int g, int stride, int list) {
    for (int w = kMaxWarps; w >= 4; w /= 2)
        if (ResidentLayout(g, stride, list, w).bytes() <= detail::maxSharedBytesOptin()) return w;
    return 0;
}

template <int STRIDE, int LIST>
__global__ void __launch_bounds__(32 * kMaxWarps, 1)
    residentKnnKernel(const ProjectionArgs a, const ResidentLayout lay) {
#if __CUDA_ARCH__ >= 800
    constexpr int kRow = STRIDE < 16 ? 16 : STRIDE;
    constexpr int kVec = STRIDE / 4, kSteps = kRow / 8, kPairs = kRow / 16;
    constexpr int kStageLd = kRow + 4;
    extern __shared__ float4 shared[];
    float* base = reinterpret_cast<float*>(shared);
    const float4* frags = reinterpret_cast<const float4*>(base + lay.frags);
    const float* norms = base + lay.norms;
    const float4* rows = reinterpret_cast<const float4*>(base + lay.rows);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, t4 = lane & 3;
    float* scratch = base + lay.rows + size_t(a.g) * a.stride + size_t(warp) * lay.perWarp;
    uint16_t* cand = reinterpret_cast<uint16_t*>(scratch + lay.scratch);  // [kCapacity][32]

    // The landmarks, once per block: fragments and norms as prepared, and the exact rows.
    {
        const float4* src = reinterpret_cast<const float4*>(a.tensor.rows);
        float4* dst = reinterpret_cast<float4*>(base + lay.frags);
        for (int e = tid; e < lay.gPad * kRow / 4; e += blockDim.x) dst[e] = src[e];
        for (int e = tid; e < lay.gPad; e += blockDim.x) base[lay.norms + e] = a.tensor.norms[e];
        const float4* l = reinterpret_cast<const float4*>(a.landmarks);
        float4* r = reinterpret_cast<float4*>(base + lay.rows);
        for (int e = tid; e < a.g * kVec; e += blockDim.x) r[e] = l[e];
    }
    __syncthreads();

    const int tilesOfPoints = int((a.n + 31) / 32);
    const int chunks = lay.gPad / kChunk;
    for (int tile = blockIdx.x * lay.warps + warp; tile < tilesOfPoints;
         tile += gridDim.x * lay.warps) {
        const size_t p0 = size_t(tile) * 32, p = p0 + lane;
        const bool active = p < a.n;

        // The A fragments of the warp's points (the exact row is loaded again for the re-rank:
        // registers are scarcer than the L2 bandwidth it costs).
        bool bad = false;
        uint32_t fa[2][kSteps][4];
        float centred2;
        {
            float4 unused[kVec];
            const size_t avail = a.n - p0 < 32 ? a.n - p0 : 32;
            centred2 = detail::loadPointFragments<kVec, kRow, kStageLd>(
                a.points, p0, avail, a.tensor.centre, scratch, unused, bad, fa);
        }

        // v of tile nt (detail::tileValues) from the fragments and norms in shared memory.
        auto valuesOfTile = [&](int nt, float(&v)[4][2]) {
            float4 b[kPairs];
#pragma unroll
            for (int kp = 0; kp < kPairs; ++kp) b[kp] = frags[(nt * kPairs + kp) * 32 + lane];
            detail::tileValues<kSteps>(fa, b, reinterpret_cast<const float2*>(norms)[nt * 4 + t4],
                                       v);
        };
        // The products of chunk c into the scratch: point i's 32 values at row i.
        auto chunkValues = [&](int c) {
#pragma unroll
            for (int ntl = 0; ntl < kChunk / 8; ++ntl) {
                float v[4][2];
                valuesOfTile(c * (kChunk / 8) + ntl, v);
                detail::storeChunkTile(scratch, ntl, v);
            }
            __syncwarp();
        };

        // Pass 1: the two smallest v of each group, straight from the mma accumulators, then
        // the bound. Lane (gq, t4) holds points 8 s + gq (slot s = 2 mt + half) and landmarks
        // 8 nt + 2 t4 + col of every tile nt; a group is (t4, col, bucket), 16 per point, and
        // chunk c sends its tile 4 c + (b + c) % 4 to bucket b % 2 (rotated, so that the rows
        // of a map spread over the buckets).
        float threshold;
        {
            detail::GroupMinima<2> minima;
            for (int c = 0; c < chunks; ++c) {
#pragma unroll
                for (int b = 0; b < kChunk / 8; ++b) {
                    float v[4][2];
                    valuesOfTile(c * (kChunk / 8) + ((b + c) & 3), v);
                    minima.keep(v, b & 1);
                }
            }
            const float bound = minima.bound(scratch, a.topnn);
            // E as in the tensor kernel, taken twice: the bound's own error and a candidate's.
            const float r = sqrtf(centred2), span = r + a.tensor.radius;
            const float margin = 2.0f * (0x1p-7f * r * a.tensor.radius +
                                         float(2 * a.dim + 16) * 0x1p-22f * span * span);
            threshold = bound + margin;
        }
        const bool trusted = threshold < FLT_MAX;

        // Pass 2: the candidates, in index order: a bit mask of the chunk's passing landmarks
        // (chunkMask), then a loop over its set bits.
        const float above = nextafterf(threshold, FLT_MAX);
        int count = 0;
        for (int c = 0; c < chunks; ++c) {
            chunkValues(c);
            uint32_t mask = detail::chunkMask(scratch, above);  // bit 31 - i: value i passes
            __syncwarp();  // the scratch is written again by the next chunk
            for (mask = __brev(mask); mask; mask &= mask - 1, ++count)
                if (count < kCapacity)
                    cand[count * 32 + lane] = uint16_t(c * kChunk + __ffs(mask) - 1);
        }

        // Exact re-rank (rerankStaggered), candidates in index order, with the point's row
        // rotated for the staggered reads.
        constexpr int kLag = kVec < 8 ? kVec : 8;
        const int r = lane & (kLag - 1);
        float4 x[kVec];
        detail::loadRotatedRow<kVec>(a.points, p, active, r, x);
        const bool exhaustive = !trusted || count > kCapacity;
        const int total = exhaustive ? a.g : count;
        float bd[LIST];
        int bi[LIST];
#pragma unroll
        for (int i = 0; i < LIST; ++i) bd[i] = FLT_MAX, bi[i] = INT_MAX;
        detail::rerankStaggered<kVec, LIST>(
            x, r, uint32_t(__cvta_generic_to_shared(rows)), total,
            [&](int e) { return exhaustive ? e : int(cand[e * 32 + lane]); }, 0, bd, bi);

        detail::countCandidates(a.tensorStats, active, total, exhaustive);

        detail::storeLists<LIST>(a, p0, bad, bd, bi, scratch);
    }
#endif
}

template <int STRIDE, int LIST>
void launchOne(const ProjectionArgs& a, cudaStream_t stream) {
    const int warps = warpsFor(a.g, a.stride, LIST);
    const ResidentLayout lay(a.g, a.stride, LIST, warps);
    detail::launchPersistent<residentKnnKernel<STRIDE, LIST>>(a, lay, warps, lay.bytes(), stream,
                                                              "launch of residentKnnKernel");
}

template <int STRIDE>
void launchForStride(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.topnn <= 9) return launchOne<STRIDE, 9>(a, stream);
    return launchOne<STRIDE, 17>(a, stream);
}

}  // namespace

size_t residentKnnSharedBytes(int stride, int g, int topnn) {
    return ResidentLayout(g, stride, topnn <= 9 ? 9 : 17, 4).bytes();
}

void launchResidentKnn(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    detail::withStride<8, 16, 32, 64>(
        a.stride, [&](auto s) { launchForStride<decltype(s)::value>(a, stream); });
}

}  // namespace sepal::cuda
