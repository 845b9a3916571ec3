// The parts k-NN: the resident k-NN's candidates and exact re-rank for landmark sets that do not
// fit in shared memory (d = 64, g = 1024: 256 KB of exact rows) or longer lists (k + 1 <= 33).
// Same neighbours, bit for bit, as the fused kernel and the CPU backend.
//
// Decomposition: one block of 8 warps per multiprocessor, persistent: the block takes 8 tiles of
// 32 points (one per warp) at a time, and the landmarks pass through shared memory in parts
// (as many as fit beside the warps' scratch: 384 at d = 64), each part loaded once by the whole
// block between two barriers. Per batch of tiles:
// - Sweep A (pass 1 over every part): v_j = |L_j - m|^2 - 2 <x - m, L_j - m> by m16n8k16 FP16
//   products of the centred points and landmarks scaled by a power of two (FP16 keeps TF32's 11
//   significant bits, at half the shared memory and registers); the two smallest v of 16 or 32
//   groups per point stay in the accumulators' registers across the parts; the topnn-th
//   smallest of those bounds the topnn-th smallest v from above.
// - Sweep B (pass 2, part by part in index order): the products again, transposed through the
//   warp's scratch, every landmark with v under the bound + 2E becomes a candidate, and the
//   candidates are re-ranked exactly from the part's rows in shared memory and inserted into
//   the point's list in registers. After a part, and after each re-rank within one, the list's
//   topnn-th distance tightens the bound for the landmarks after it (a later landmark enters
//   only below it).
// Sweep A runs the parts backwards, so that both sweeps begin with the part left in shared
// memory by the other. Where a lane's candidates would pass kCapacity the warp re-ranks what its
// lanes hold and goes on with the tightened limit. A point whose bound overflowed, or whose
// coordinates do not fit FP16 after scaling, scans every landmark exactly instead.
// Limits: stride 8 to 64, topnn <= 33, g <= 65536, compute capability 8.0 or later
// (kernel_limits.h).

#include <cuda_fp16.h>

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

constexpr int kWarps = 8;
constexpr int kCapacity = 64;  // candidates a point holds between re-ranks
using detail::kChunk;

/// Shared-memory layout of one instantiation, in floats (all offsets multiples of 4): one part
/// of the landmarks (FP16 fragments, norms, exact rows), then each warp's scratch.
struct PartsLayout {
    int g = 0, part = 0, parts = 0, halfRow = 0, gPad = 0;
    size_t frags = 0, norms = 0, rows = 0, warpArea = 0, perWarp = 0, total = 0;

    PartsLayout(int landmarks, int stride, int list, int partSize) {
        g = landmarks;
        gPad = (g + kTensorPadding - 1) / kTensorPadding * kTensorPadding;
        part = partSize < gPad ? partSize : gPad;
        parts = (gPad + part - 1) / part;
        halfRow = halfFragmentWidth(stride);
        const size_t stage = size_t(32) * halfRow, lists = size_t(2) * 32 * list;
        const size_t mins = size_t(32) * (list <= 17 ? 32 : 64);
        const size_t sweep = size_t(32) * kChunk + kCapacity * 32 / 2;  // products, candidates
        perWarp = stage;
        for (size_t s : {lists, mins, sweep}) perWarp = s > perWarp ? s : perWarp;
        frags = 0;
        norms = frags + size_t(part) * halfRow / 2;
        rows = norms + size_t(part);
        warpArea = rows + size_t(part) * stride;
        total = warpArea + kWarps * perWarp;
    }
    size_t bytes() const { return total * 4; }
    /// Landmark slots of part q (the last part may be shorter), padding included.
    __host__ __device__ int width(int q) const {
        return gPad - q * part < part ? gPad - q * part : part;
    }
    /// Real landmarks of part q (its exact rows).
    __host__ __device__ int real(int q) const {
        return g - q * part < width(q) ? g - q * part : width(q);
    }
};

/// The largest part (a multiple of kTensorPadding landmarks) whose layout fits; 0 when none.
int partFor(int g, int stride, int list) {
    const int gPad = (g + kTensorPadding - 1) / kTensorPadding * kTensorPadding;
    for (int part = gPad; part >= kTensorPadding; part -= kTensorPadding)
        if (PartsLayout(g, stride, list, part).bytes() <= detail::maxSharedBytesOptin())
            return part;
    return 0;
}

/// Starts a 16-byte copy from global to shared memory (completed by waitCopies).
__device__ __forceinline__ void copyAsync(void* sharedDst, const void* globalSrc) {
#if __CUDA_ARCH__ >= 800
    const uint32_t dst = uint32_t(__cvta_generic_to_shared(sharedDst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(globalSrc));
#endif
}

/// Waits for this thread's copies started by copyAsync.
__device__ __forceinline__ void waitCopies() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/// Two floats as the FP16 pair of an mma.sync register (the first in the low half).
__device__ __forceinline__ uint32_t packHalves(float2 v) {
    const __half2 h = __floats2half2_rn(v.x, v.y);
    return *reinterpret_cast<const uint32_t*>(&h);
}

/// The FP16 A operands of a warp's 32 points: stages their rows (points p0 .. p0 + avail - 1,
/// KVEC float4s each; zeros for the rest) in `scratch` with coalesced loads, centres the lane's
/// own row on `centre`, scales it by `scale` and extracts the m16n8k16 A fragments. Returns
/// |x - centre|^2 (unscaled); `bad` records a NaN or infinity (replaced by 0).
template <int KVEC, int KROW>
__device__ __forceinline__ float loadHalfFragments(const float* points, size_t p0, size_t avail,
                                                   const float* centre, float scale, float* scratch,
                                                   bool& bad, uint32_t (&fa)[2][KROW / 16][4]) {
    const int lane = threadIdx.x & 31, gq = lane >> 2, t4 = lane & 3;
    const float centred2 = detail::stageCentredRows<KVEC, KROW, KROW>(
        points, p0, avail, centre, scratch, bad, [&](int, float4, float4 d) {
            return make_float4(d.x * scale, d.y * scale, d.z * scale, d.w * scale);
        });
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
        for (int ks = 0; ks < KROW / 16; ++ks) {
            const float* top = scratch + (16 * mt + gq) * KROW + 16 * ks + 2 * t4;
            const float* bottom = top + 8 * KROW;
            fa[mt][ks][0] = packHalves(*reinterpret_cast<const float2*>(top));
            fa[mt][ks][1] = packHalves(*reinterpret_cast<const float2*>(bottom));
            fa[mt][ks][2] = packHalves(*reinterpret_cast<const float2*>(top + 8));
            fa[mt][ks][3] = packHalves(*reinterpret_cast<const float2*>(bottom + 8));
        }
    }
    __syncwarp();
    return centred2;
}

template <int STRIDE, int LIST>
__global__ void __launch_bounds__(32 * kWarps, 1)
    partsKnnKernel(const ProjectionArgs a, const PartsLayout lay) {
#if __CUDA_ARCH__ >= 800
    constexpr int kRow = STRIDE < 32 ? 32 : STRIDE;  // halfFragmentWidth
    constexpr int kVec = STRIDE / 4, kSteps = kRow / 16, kPairs = kRow / 32;
    constexpr int kBuckets = LIST <= 17 ? 2 : 4;  // groups per (t4, col): 16 or 32 per point
    extern __shared__ float4 shared[];
    float* base = reinterpret_cast<float*>(shared);
    const uint4* frags = reinterpret_cast<const uint4*>(base + lay.frags);
    const float* norms = base + lay.norms;
    const float4* rows = reinterpret_cast<const float4*>(base + lay.rows);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, t4 = lane & 3;
    float* scratch = base + lay.warpArea + size_t(warp) * lay.perWarp;
    uint16_t* cand = reinterpret_cast<uint16_t*>(scratch + 32 * kChunk);  // [kCapacity][32]
    const float scale = a.tensor.halfScale, minusTwoOverS2 = -2.0f / (scale * scale);

    // Part q into shared memory, by the whole block (every warp has finished with the last).
    int resident = -1;
    auto loadPart = [&](int q) {
        __syncthreads();
        const int first = q * lay.part, width = lay.width(q), real = lay.real(q);
        const float4* fragSrc =
            reinterpret_cast<const float4*>(a.tensor.halves + size_t(first) * kRow);
        for (int e = tid; e < width * kRow / 8; e += blockDim.x)
            copyAsync(base + lay.frags + 4 * e, fragSrc + e);
        for (int e = tid; e < width / 4; e += blockDim.x)
            copyAsync(base + lay.norms + 4 * e, a.tensor.norms + first + 4 * e);
        const float4* rowSrc = reinterpret_cast<const float4*>(a.landmarks) + size_t(first) * kVec;
        for (int e = tid; e < real * kVec; e += blockDim.x)
            copyAsync(base + lay.rows + 4 * e, rowSrc + e);
        waitCopies();
        __syncthreads();
        resident = q;
    };

    const int tilesOfPoints = int((a.n + 31) / 32);
    for (int batch = blockIdx.x * kWarps; batch < tilesOfPoints; batch += gridDim.x * kWarps) {
        const int tile = batch + warp;
        const size_t p0 = size_t(tile) * 32, p = p0 + lane;
        const bool active = p < a.n;

        bool bad = false;
        uint32_t fa[2][kSteps][4];
        const size_t avail = p0 >= a.n ? 0 : a.n - p0 < 32 ? a.n - p0 : 32;
        const float centred2 = loadHalfFragments<kVec, kRow>(a.points, p0, avail, a.tensor.centre,
                                                             scale, scratch, bad, fa);

        // v of local tile nt of the part in shared memory.
        auto valuesOfTile = [&](int nt, float(&v)[4][2]) {
            uint4 b[kPairs];
#pragma unroll
            for (int kp = 0; kp < kPairs; ++kp) b[kp] = frags[(nt * kPairs + kp) * 32 + lane];
            detail::halfTileValues<kSteps>(
                fa, b, reinterpret_cast<const float2*>(norms)[nt * 4 + t4], minusTwoOverS2, v);
        };

        // Sweep A: the two smallest v of each group, over all parts (backwards). Lane (gq, t4)
        // holds points 8 s + gq and landmarks 8 nt + 2 t4 + col; a group is (t4, col, bucket),
        // and chunk c sends its tile 4 c + (b + c) % 4 to bucket b % kBuckets.
        float threshold, margin;
        {
            detail::GroupMinima<kBuckets> minima;
            for (int k = 0; k < lay.parts; ++k) {
                const int q = lay.parts - 1 - k;
                if (q != resident) loadPart(q);
                const int chunks = lay.width(q) / kChunk;
                for (int c = 0; c < chunks; ++c) {
#pragma unroll
                    for (int b = 0; b < kChunk / 8; ++b) {
                        float v[4][2];
                        valuesOfTile(c * (kChunk / 8) + ((b + c) & 3), v);
                        minima.keep(v, b % kBuckets);
                    }
                }
            }
            const float bound = minima.bound(scratch, a.topnn);
            // E as in the tensor kernel (FP16 rounds like TF32: 11 significant bits), plus
            // d 2^-22 span^2 for values scaled into FP16's subnormal range (2^-25 absolute), all
            // taken twice: the bound's own error and a candidate's.
            const float r = sqrtf(centred2), span = r + a.tensor.radius;
            margin = 2.0f * (0x1p-7f * r * a.tensor.radius +
                             float(2 * a.dim + 17) * 0x1p-22f * span * span);
            threshold = r <= a.tensor.halfReach ? bound + margin : FLT_MAX;
        }
        const bool trusted = threshold < FLT_MAX;

        // The point's exact row for the re-rank, rotated for the staggered reads (below).
        constexpr int kLag = kVec < 8 ? kVec : 8;
        const int r = lane & (kLag - 1);
        float4 x[kVec];
        detail::loadRotatedRow<kVec>(a.points, p, active, r, x);

        // Sweep B: per part in index order, the candidates and their exact distances.
        float bd[LIST];
        int bi[LIST];
#pragma unroll
        for (int i = 0; i < LIST; ++i) bd[i] = FLT_MAX, bi[i] = INT_MAX;
        int exactTotal = 0;
        const uint32_t rowsAddress = uint32_t(__cvta_generic_to_shared(rows));
        // Lanes past the points' end collect nothing (no re-rank of the warp for them).
        const bool collects = trusted && active;
        for (int q = 0; q < lay.parts; ++q) {
            if (q != resident) loadPart(q);
            const int first = q * lay.part, chunks = lay.width(q) / kChunk, real = lay.real(q);
            // A landmark later than the list's enters only below the list's topnn-th distance:
            // the largest of the first topnn (a select chain would become an indexed load from
            // local memory).
            auto aboveLimit = [&] {
                float kth = -FLT_MAX;
#pragma unroll
                for (int i = 0; i < LIST; ++i) kth = fmaxf(kth, i < a.topnn ? bd[i] : -FLT_MAX);
                return nextafterf(fminf(threshold, kth - centred2 + margin), FLT_MAX);
            };
            float above = aboveLimit();
            int count = 0;
            for (int c = 0; c < chunks; ++c) {
#pragma unroll
                for (int ntl = 0; ntl < kChunk / 8; ++ntl) {
                    float v[4][2];
                    valuesOfTile(c * (kChunk / 8) + ntl, v);
                    detail::storeChunkTile(scratch, ntl, v);
                }
                __syncwarp();
                // A point beyond FP16's reach (or whose bound overflowed) collects nothing: it
                // scans the part exactly below.
                uint32_t mask = collects ? detail::chunkMask(scratch, above) : 0u;
                if (__any_sync(0xffffffffu, count + __popc(mask) > kCapacity)) {
                    // A lane's candidates would overflow: the warp re-ranks what it holds, and
                    // the limit tightens to the list's new topnn-th distance (the chunk's
                    // landmarks are all later). Crowded landmarks (a SOM's at g = 1024: 100 and
                    // more candidates a part) sent such points to the exhaustive scan before.
                    detail::rerankStaggered<kVec, LIST>(
                        x, r, rowsAddress, count, [&](int e) { return int(cand[e * 32 + lane]); },
                        first, bd, bi);
                    exactTotal += count;
                    count = 0;
                    above = aboveLimit();
                    mask = collects ? detail::chunkMask(scratch, above) : 0u;
                }
                __syncwarp();
                for (mask = __brev(mask); mask; mask &= mask - 1, ++count)
                    cand[count * 32 + lane] = uint16_t(c * kChunk + __ffs(mask) - 1);
            }
            const int total = !active ? 0 : trusted ? count : real;
            exactTotal += total;
            detail::rerankStaggered<kVec, LIST>(
                x, r, rowsAddress, total,
                [&](int e) { return trusted ? int(cand[e * 32 + lane]) : e; }, first, bd, bi);
        }

        detail::countCandidates(a.tensorStats, active, exactTotal, !trusted);

        detail::storeLists<LIST>(a, p0, bad, bd, bi, scratch);
    }
#endif
}

template <int STRIDE, int LIST>
void launchOne(const ProjectionArgs& a, cudaStream_t stream) {
    const PartsLayout lay(a.g, a.stride, LIST, partFor(a.g, a.stride, LIST));
    detail::launchPersistent<partsKnnKernel<STRIDE, LIST>>(a, lay, kWarps, lay.bytes(), stream,
                                                           "launch of partsKnnKernel");
}

template <int STRIDE>
void launchForStride(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.topnn <= 9) return launchOne<STRIDE, 9>(a, stream);
    if (a.topnn <= 17) return launchOne<STRIDE, 17>(a, stream);
    launchOne<STRIDE, 33>(a, stream);
}

int listFor(int topnn) {
    return topnn <= 9 ? 9 : topnn <= 17 ? 17 : 33;
}

}  // namespace

size_t partsKnnSharedBytes(int stride, int g, int topnn) {
    return PartsLayout(g, stride, listFor(topnn), kTensorPadding).bytes();
}

size_t partsKnnPointsPerPass(int multiprocessors) {
    return size_t(multiprocessors) * kWarps * 32;
}

void launchPartsKnn(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    detail::withStride<8, 16, 32, 64>(
        a.stride, [&](auto s) { launchForStride<decltype(s)::value>(a, stream); });
}

}  // namespace sepal::cuda
