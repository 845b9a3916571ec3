// The resident k-NN: the tensor kernel's TF32 candidates and exact re-rank, with every landmark
// held in shared memory, writing sorted neighbour lists for a separate projection
// (table_projection.cu). Same neighbours, bit for bit, as the fused kernel and the CPU backend.
//
// Decomposition: one block per multiprocessor (16, 8 or 4 warps, as many as shared memory
// allows), persistent: each warp takes tiles of 32 points until none are left, so the block
// loads the landmarks once and meets at no barrier after that.
// Shared memory: the landmarks as TF32 mma.sync B fragments in index order (TensorLandmarks,
// unshuffled) with their centred norms, the exact rows (padded by 4 floats so that lanes reading
// different rows spread over the banks), and per warp a scratch area (the point rows while they
// are staged, then 32 x 32 products, then the output lists) and the candidates' indices.
// Per tile of points: v_j = |L_j - m|^2 - 2 <x - m, L_j - m> by m16n8k8 TF32 products, 32
// landmarks at a time, transposed through the scratch so that each lane reads its own point's
// row. Pass 1 keeps the minimum of 32 landmark groups per point (group = position in the chunk,
// rotated by one float4 per chunk so that a map's rows do not share groups); the topnn-th
// smallest group minimum T bounds the topnn-th smallest v from above. Pass 2 keeps, in index
// order, every landmark with v <= T + 2E (E as in the tensor kernel: TF32 rounding, float sums,
// centring). The re-rank computes the candidates' difference-form distances in dimension order
// and inserts them in index order, so ties stay ordered by index as in the fused kernel. A point
// with more candidates than kCapacity, or a bound that overflowed, scans every landmark exactly.
// Limits: stride 8 to 64, topnn <= 17, the landmarks must fit in shared memory
// (residentKnnSupports), compute capability 8.0 or later.

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

constexpr int kMaxWarps = 16;
constexpr int kCapacity = 64;  // candidates kept per point (24.8 on average at the headline)
[[maybe_unused]] constexpr int kChunk = 32;  // landmarks per transposed chunk (device code)
constexpr int kChunkLd = 36;  // floats per point row of a chunk: conflict-free float4 reads

/// Shared-memory layout of one instantiation, in floats (all offsets multiples of 4).
struct ResidentLayout {
    int gPad = 0, row = 0, rowLd = 0, scratch = 0, warps = 0;
    size_t frags = 0, norms = 0, rows = 0, perWarp = 0, total = 0;

    ResidentLayout(int g, int stride, int list, int warpCount) {
        gPad = (g + kTensorPadding - 1) / kTensorPadding * kTensorPadding;
        row = tensorStride(stride);
        rowLd = stride + 4;
        const int stage = 32 * (row + 4), chunk = 32 * kChunkLd, lists = 2 * 32 * list;
        scratch = stage > chunk ? stage : chunk;
        if (lists > scratch) scratch = lists;
        warps = warpCount;
        frags = 0;
        norms = frags + size_t(gPad) * row;
        rows = norms + size_t(gPad);
        perWarp = size_t(scratch) + kCapacity * 32 / 2;  // candidates: 16-bit indices
        total = rows + size_t(g) * rowLd + size_t(warps) * perWarp;
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
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int gq = lane >> 2, t4 = lane & 3;
    float* scratch = base + lay.rows + size_t(a.g) * lay.rowLd + size_t(warp) * lay.perWarp;
    uint16_t* cand = reinterpret_cast<uint16_t*>(scratch + lay.scratch);  // [kCapacity][32]

    // The landmarks, once per block: fragments and norms as prepared, exact rows padded.
    {
        const float4* src = reinterpret_cast<const float4*>(a.tensor.rows);
        float4* dst = reinterpret_cast<float4*>(base + lay.frags);
        for (int e = tid; e < lay.gPad * kRow / 4; e += blockDim.x) dst[e] = src[e];
        for (int e = tid; e < lay.gPad; e += blockDim.x) base[lay.norms + e] = a.tensor.norms[e];
        const float4* l = reinterpret_cast<const float4*>(a.landmarks);
        float4* r = reinterpret_cast<float4*>(base + lay.rows);
        for (int e = tid; e < a.g * kVec; e += blockDim.x)
            r[(e / kVec) * (lay.rowLd / 4) + e % kVec] = l[e];
    }
    __syncthreads();

    const int tilesOfPoints = int((a.n + 31) / 32);
    const int chunks = lay.gPad / kChunk;
    const int rowVec = lay.rowLd / 4;
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

        // The products of chunk c into the scratch: point i's 32 values at row i.
        auto chunkValues = [&](int c) {
#pragma unroll
            for (int ntl = 0; ntl < kChunk / 8; ++ntl) {
                const int nt = c * (kChunk / 8) + ntl;
                float4 b[kPairs];
#pragma unroll
                for (int kp = 0; kp < kPairs; ++kp) b[kp] = frags[(nt * kPairs + kp) * 32 + lane];
                const float2 norm = reinterpret_cast<const float2*>(norms)[nt * 4 + t4];
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) {
                    float acc[4];
                    detail::mmaTile<kSteps>(fa[mt], b, acc);
                    float* top = scratch + (16 * mt + gq) * kChunkLd + 8 * ntl + 2 * t4;
                    *reinterpret_cast<float2*>(top) =
                        make_float2(fmaf(-2.0f, acc[0], norm.x), fmaf(-2.0f, acc[1], norm.y));
                    *reinterpret_cast<float2*>(top + 8 * kChunkLd) =
                        make_float2(fmaf(-2.0f, acc[2], norm.x), fmaf(-2.0f, acc[3], norm.y));
                }
            }
            __syncwarp();
        };
        const float4* mine = reinterpret_cast<const float4*>(scratch + lane * kChunkLd);

        // Pass 1: group minima, then the bound.
        float threshold;
        {
            float mins[32];
#pragma unroll
            for (int i = 0; i < 32; ++i) mins[i] = FLT_MAX;
            for (int c = 0; c < chunks; ++c) {
                chunkValues(c);
#pragma unroll
                for (int k = 0; k < 8; ++k) {
                    const float4 v = mine[(k + c) & 7];
                    mins[4 * k] = fminf(mins[4 * k], v.x);
                    mins[4 * k + 1] = fminf(mins[4 * k + 1], v.y);
                    mins[4 * k + 2] = fminf(mins[4 * k + 2], v.z);
                    mins[4 * k + 3] = fminf(mins[4 * k + 3], v.w);
                }
                __syncwarp();
            }
            detail::sortAscending<32>(mins);
            float bound = -FLT_MAX;
#pragma unroll
            for (int i = 0; i < 32; ++i) bound = fmaxf(bound, i < a.topnn ? mins[i] : -FLT_MAX);
            // E as in the tensor kernel, taken twice: the bound's own error and a candidate's.
            const float r = sqrtf(centred2), span = r + a.tensor.radius;
            const float margin = 2.0f * (0x1p-7f * r * a.tensor.radius +
                                         float(2 * a.dim + 16) * 0x1p-22f * span * span);
            threshold = bound + margin;
        }
        const bool trusted = threshold < FLT_MAX;

        // Pass 2: the candidates, in index order.
        int count = 0;
        for (int c = 0; c < chunks; ++c) {
            chunkValues(c);
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const float4 v = mine[k];
                const float vs[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if (vs[e] <= threshold) {
                        if (count < kCapacity)
                            cand[count * 32 + lane] = uint16_t(c * kChunk + 4 * k + e);
                        ++count;
                    }
                }
            }
            __syncwarp();
        }

        // Exact re-rank in the reference's arithmetic, candidates in index order.
        float4 x[kVec];
        {
            const float4* src = reinterpret_cast<const float4*>(a.points) + (active ? p : 0) * kVec;
            bool ignored = false;
#pragma unroll
            for (int c = 0; c < kVec; ++c)
                x[c] = detail::finiteOrZero4(active ? src[c] : make_float4(0, 0, 0, 0), ignored);
        }
        const bool exhaustive = !trusted || count > kCapacity;
        const int total = exhaustive ? a.g : count;
        float bd[LIST];
        int bi[LIST];
#pragma unroll
        for (int i = 0; i < LIST; ++i) bd[i] = FLT_MAX, bi[i] = INT_MAX;
        auto distanceTo = [&](int j) {
            const float4* row = rows + j * rowVec;
            return detail::squaredDistance(x, [&](int c) { return row[c]; });
        };
        for (int e = 0; e < total; e += 2) {
            // Two candidates side by side: independent sums hide the loads' latency.
            const bool second = e + 1 < total;
            const int j0 = exhaustive ? e : cand[e * 32 + lane];
            const int j1 = !second ? j0 : exhaustive ? e + 1 : cand[(e + 1) * 32 + lane];
            const float d0 = distanceTo(j0), d1 = distanceTo(j1);
            if (d0 < bd[LIST - 1]) detail::insertSorted<LIST>(bd, bi, d0, j0);
            if (second && d1 < bd[LIST - 1]) detail::insertSorted<LIST>(bd, bi, d1, j1);
        }

        detail::countCandidates(a.tensorStats, active, total, exhaustive);

        // The lists, through the scratch, with coalesced stores: the warp's 32 points own one
        // contiguous range of kOut x 32 entries. A point with NaN or infinity is queued for
        // placeNonFinite when a projection follows, and its list marked (distance -1) for it.
        const int kOut = a.kOut;
        float* outDist = scratch;
        int* outIdx = reinterpret_cast<int*>(scratch + 32 * LIST);
#pragma unroll
        for (int i = 0; i < LIST; ++i) {
            if (i < kOut) {
                outDist[lane * kOut + i] = bd[i];
                outIdx[lane * kOut + i] = bi[i];
            }
        }
        if (bad && a.out) outDist[lane * kOut] = -1.0f;
        __syncwarp();
        const size_t first = p0 * kOut, last = (a.n < p0 + 32 ? a.n : p0 + 32) * kOut;
        for (size_t e = first + lane; e < last; e += 32) {
            a.knnDist[e] = outDist[e - first];
            a.knnIdx[e] = uint32_t(outIdx[e - first]);
        }
        if (bad && a.out && active) detail::queueNonFinite(a.counters, a.nonFinite, p);
        __syncwarp();  // the scratch is staged again by the next tile
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

bool residentKnnSupports(int stride, int g, int topnn) {
    if (topnn > 17 || !tensorSupports(stride, topnn)) return false;
    return warpsFor(g, stride, topnn <= 9 ? 9 : 17) > 0;
}

void launchResidentKnn(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    detail::withStride<8, 16, 32, 64>(
        a.stride, [&](auto s) { launchForStride<decltype(s)::value>(a, stream); });
}

}  // namespace sepal::cuda
