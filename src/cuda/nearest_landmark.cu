// The training step's nearest landmark of every cell (k = 1), with the per-landmark sums added
// in the same pass. Same winners as the CPU search: the exact difference-form distance in
// dimension order, each square rounded before it is added, the lower index on ties.
//
// Decomposition: a persistent grid of one block of 8 warps per multiprocessor; a warp takes 32
// cells at a time (the block's 8 tiles make a batch). The landmarks sit in shared memory as split
// FP16 m16n8k16 B fragments: the FP16 value of (L - m) s and the FP16 value of its rest, m their
// mean and s a power of two, all of them when they fit, else in parts that the block passes
// through shared memory once per batch (every other batch backwards, so that it starts with the
// part left there).
// On compute capability 9.0 with sm_90a code and from 256 landmarks (nearestUsesWarpgroupProducts)
// the four warps of a warpgroup issue the same products together by warpgroup MMA
// (warpgroup_mma.cuh): the tensor cores read the part's high and low parts from shared memory,
// asynchronously, while the warps compare the step before; the values are the m16n8k16
// products' bit for bit, so everything below holds for both.
// Per tile of cells: the warp stages their rows (coalesced, loaded a tile ahead) in its scratch,
// builds the split A fragments of the centred, scaled rows, and computes v_j = |L_j - m|^2 -
// 2 <x - m, L_j - m> of 32 landmarks at a time by three FP16 products each (splitMma's lo.hi,
// hi.lo, hi.hi, summed in single precision), issued term by term over eight independent chains
// and one step ahead of the comparisons (two warps a scheduler leave little else to hide the
// products' latency: issued chain by chain, the products took 1.5k cycles a step). One FP16 product
// would carry TF32's error, 2^-10 |x - m| |L - m|: about 0.5 at the clustered headline data, where
// a k-means step's centroids crowd a cluster and tens of them would pass; the split products err by
// about 2^-15 of that, and the pass runs once instead of the two passes a bound from group minima
// needs. Lane (gq, t4) holds the products of cells 8 s + gq (slot s) with landmarks 2 t4 + c (mod
// 8) (column c): per slot and column, 8 groups of landmarks per cell over the quad, it keeps the
// smallest v with its landmark and the second smallest v. Up to g = 1024 (PACKED) the landmark
// rides in the value: the low `bits` bits of v are replaced by j / 8 (bits = log2(gPad / 8), 7
// at g = 1024), so that three minima keep both and the compare and two selects of the landmark
// go (the comparisons were 5 of the 6 instructions a value, and the pass's busiest pipe). A
// packed value p differs from v by at most (2^bits - 1) ulps of v; the bound below takes that in
// (PACKED's limit), and the exact re-evaluation still decides. Then each
// lane takes one cell: T = v_1 + margin, v_1 the smallest of its groups' values and margin twice
// a bound E on |v_j + |x - m|^2 - D_j| for every landmark j, D_j the exact distance. A landmark
// whose exact distance is at most the approximate winner's (the exact winner among them) then
// has v <= T. When no group's second value is <= T, the candidates are the groups' smallest
// values <= T (usually one or two); their exact distances decide, in the CPU's arithmetic (a lone
// candidate wins without one unless args.winnerDistances: its distance is then -1, for the sums
// pass to measure, and its upper bound v1 + |x - m|^2 plus the slack the lower bound takes, which
// must stay below FLT_MAX, where a measured distance could overflow and skip the cell; the gather
// of its row was the pass's one read from beyond the tile, from L2 at g = 1024). A
// group whose second value is <= T is ambiguous (another of its landmarks may win): the pass
// decides the other groups' candidates and marks the cell with its ambiguous groups and that
// best, and a second kernel scans exactly every landmark of those groups only (an eighth of
// them a group), one warp per cell. A cell too far out for FP16, or whose bound overflowed, is
// marked for a scan of every landmark. The scan's lanes split a group's landmarks, whose rows it
// holds in shared memory where they fit, group after group (read from global memory, 32 lanes'
// rows are 32 cache lines a load, and 0.9 % of 10^8 cells scanned at g = 1024 took 30 ms).
// E, for a = fl(x - m), b_j = fl(L_j - m), r = |a|, R >= |b_j|, span = r + R, u = 2^-24, k the
// fragments' padded columns: the split products' model of split_knn_input.cpp, |dot/s^2 - a.b|
// <= eps r R + tiny span with eps = (2 k + 8) 2^-22 (lo.lo missing, each lo rounded to FP16, the
// tensor cores' sums truncated at most one ulp a term) and tiny = 2^-25 sqrt(k) / s (FP16 parts
// below its normal range), doubled in v = fl(|b|^2 - 2 dot / s^2); rounding |b|^2 and v, 2.01 u
// span^2; centring, 2.0001 u span^2; the exact distance's own rounding, (d + 3) u span^2. So E =
// 2 eps r R + 2 tiny span + (1.01 d + 8) u span^2, taken 1.05 times (r, R and the margin
// themselves are rounded) and twice: the approximate winner's error and a candidate's.
// PACKED: with M that margin, p_w = v1 the packed winner and j* the exact winner, v_j* <= v_w + M
// and p_j* >= p_w, so |v_w| and |v_j*| are at most B = (|v1| + M)(1 + 2.2 2^(bits - 23)), and
// p_j* <= v1 + M + 2 (2^bits - 1) ulp(B); the limit adds 2^(bits + 1) ulp(B) + FLT_MIN (the rest
// for its own rounding and values below the normal range). fminf and fmaxf keep the index bits
// only without flush-to-zero (packed values near 0 are subnormal): this file is built without
// --use_fast_math and must not be given -ftz=true (nvcc 13 defines no macro that would let this
// file refuse them; `CudaNearestStep.SubnormalPackedValuesKeepTheirLandmark` fails on such a
// build: checked on the H200 with -ftz=true, every cell went to landmark j mod 8).
// Sums, when asked for (args.sums; the training step's SEPAL_TRAIN_FUSED_SUMS=1) and all
// landmarks and g x stride floats of sums fit in shared memory: as landmark_sums.cu, float sums
// and counts per block in shared memory from the staged rows (lane t adds dimension t of 8 cells
// at a time: the device adds floats in shared memory by compare-and-swap loops, 40 % of the pass
// at g = 256 when each waited for the last), flushed to the global double sums every
// kFlushBatches batches (65536 cells per float partial sum); the cells the second kernel scans
// are added there with double atomics. Otherwise the pass writes the assignment and the
// distances for landmark_sums.cu, which reads the cells again: on the H200 that second read
// costs no more than the sums in the pass (GPU_NOTES.md), so it is the training step's default.
// Equal landmarks (a batch SOM's square neighbourhood makes whole blocks of the map equal while its
// radius spans them): each one equal to a landmark of lower index has the norm FLT_MAX, so that
// its values never pass the limit and never make a group ambiguous; it would never win anyway, for
// it ties with the lower index. Without this the ties sent most cells to the exact scan (93 % of
// 10^8 at g = 1024 in `sepal-bench cuda-train --mode batch-som-app`, three times the step's time).
// With args.lower the pass also gives each settled cell bounds for the training step
// (step_bounds.h): above its distance to the winner, and below its distance to every other
// landmark, from the same values (the smallest of the other groups and the winner's group's
// second, less twice the limit's margin); the cells it leaves to the scan, and those whose
// winner has an equal landmark, get 0 (no bound).
// Limits: stride 8 to 64, compute capability 8.0 or later, a part of kNearestPadding landmarks and
// the warps' scratch in shared memory (kernel_limits.h).

#include "cuda/nearest_landmark.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "core/common/error.h"
#include "core/train/cell_bounds.h"

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/kernel_limits.h"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/split_mma.cuh"
#include "cuda/warpgroup_mma.cuh"

#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;
constexpr int kMergeLd = 25;                  // floats per cell of the merge area: 3 x 8 groups
constexpr uint32_t kNeedsScan = 0xfffffffeu;  // assignment of a cell left to the exact scan
// Assignment of a cell whose products left only some groups unsettled: kGroupScan | groups << 16
// | the best of the settled groups' candidates (kNoWinner: none; its distance in dist).
constexpr uint32_t kGroupScan = 0x80000000u;
constexpr uint32_t kNoWinner = 0xffffu;
// The winner so far fits the low 16 bits below this many landmarks (the training step never
// gives more; the check guards the kernel's own interface).
constexpr int kMaxGroupScanLandmarks = 0xffff;
constexpr int kFlushBatches = 256;  // 256 batches of 256 cells per float partial sum
constexpr int kScanThreads = 512;
constexpr int kFragmentThreads = 256;
constexpr int kMaxPackedBits = 7;  // the index in the values' low bits up to g = 1024
// Whether this compilation's device code has warpgroup MMA (sm_90a); a kernel asked for it
// (WARPGROUP) takes the m16n8k16 products where not.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
constexpr bool kWarpgroupBuilt = true;
#else
constexpr bool kWarpgroupBuilt = false;
#endif
// Steps of 32 landmarks a warpgroup's pipeline runs before it drains (16 and 32 were no faster
// on the H200 and took six times as long to compile).
constexpr int kWarpgroupChunk = 8;
// Landmarks from which the products are the warpgroup's by default. On the H200 over 10^8 cells
// (every cell searched) a step took 10 % less at g 1024 (k-means 60.1-60.3 ms against 66.7,
// batch SOM 59.4-59.5 against 65.9-66.3), 6 % less at g 384 and 1-2 % less at g 256 (k-means
// 25.1 against 25.7, batch SOM 23.7 against 24.0). At g 256 k-means was 2 % slower while every
// cell's candidates were measured: the warps of a warpgroup waited for each other at its
// products, behind the most uneven candidate loops; a lone candidate now takes none (with the
// sums in the pass or SEPAL_NEAREST_WINNER_DISTANCES=1 every candidate is measured again, and
// the warpgroup at g 256 may lose those 2 %: not the defaults).
constexpr int kWarpgroupFromLandmarks = 256;

/// Shared-memory layout of one launch, in floats (every offset a multiple of 4): a part of the
/// landmarks (fragments, norms), the float sums and counts when the pass adds them, then each
/// warp's staged rows and merge area.
struct NearestLayout {
    int g = 0, gPad = 0, part = 0, parts = 0, stride = 0, rowLd = 0;
    int indexBits = 0;  // bits of a group's landmark index (gPad / 8 landmarks a group)
    bool fused = false;
    size_t frags = 0, norms = 0, sums = 0, counts = 0, warpArea = 0, perWarp = 0, total = 0;

    NearestLayout(int landmarks, int strideIn, int partSize, bool fuse) {
        g = landmarks;
        stride = strideIn;
        fused = fuse;
        gPad = (g + kNearestPadding - 1) / kNearestPadding * kNearestPadding;
        part = partSize < gPad ? partSize : gPad;
        parts = (gPad + part - 1) / part;
        while ((8 << indexBits) < gPad) ++indexBits;
        rowLd = stride + 4;  // conflict-free float4 reads of a lane's own row
        const size_t width = size_t(halfFragmentWidth(stride));
        frags = 0;
        norms = frags + size_t(part) * width;
        sums = norms + size_t(part);
        counts = sums + (fused ? size_t(g) * stride : 0);
        warpArea = counts + (fused ? (size_t(g) + 3) / 4 * 4 : 0);
        perWarp = size_t(32) * rowLd + size_t(32) * kMergeLd;
        total = warpArea + kWarps * perWarp;
    }
    size_t bytes() const { return total * 4; }
    /// Landmark slots of part q (the last part may be shorter), padding included.
    __host__ __device__ int width(int q) const {
        return gPad - q * part < part ? gPad - q * part : part;
    }
};

/// The part size (a multiple of kNearestPadding) of a launch: every landmark when it fits (and
/// only then with the sums), else parts as equal as whole multiples allow; 0 when none fits.
int partFor(int g, int stride, bool fused) {
    const size_t limit = detail::maxSharedBytesOptin();
    const int gPad = (g + kNearestPadding - 1) / kNearestPadding * kNearestPadding;
    if (NearestLayout(g, stride, gPad, fused).bytes() <= limit) return gPad;
    if (fused) return 0;
    for (int part = gPad - kNearestPadding; part >= kNearestPadding; part -= kNearestPadding) {
        if (NearestLayout(g, stride, part, false).bytes() > limit) continue;
        const int parts = (gPad + part - 1) / part;
        const int even = (gPad / kNearestPadding + parts - 1) / parts * kNearestPadding;
        return even;
    }
    return 0;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// One m16n8k16 FP16 product accumulated into c in single precision (the B registers as the
/// float4 fragments hold them). Not volatile, unlike detail::mmaF16: the scan issues eight
/// independent chains of products, and the compiler may interleave them to hide each product's
/// latency.
__device__ __forceinline__ void mmaHalf(float (&c)[4], const uint32_t (&a)[4], float b0, float b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(__float_as_uint(b0)),
          "r"(__float_as_uint(b1)));
}
#endif

/// Adds x[u] to the shared float *at[u] for each u with a target: the device has no shared
/// float addition, so atomicAdd loops on a compare-and-swap per value; here all N first
/// attempts are in flight together, and only a value that another thread changed meanwhile
/// tries again.
template <int N>
__device__ __forceinline__ void addShared(float* const (&at)[N], const float (&x)[N]) {
    unsigned expected[N], seen[N];
#pragma unroll
    for (int u = 0; u < N; ++u) expected[u] = at[u] ? __float_as_uint(*at[u]) : 0u;
#pragma unroll
    for (int u = 0; u < N; ++u)
        seen[u] = at[u] ? atomicCAS(reinterpret_cast<unsigned*>(at[u]), expected[u],
                                    __float_as_uint(__uint_as_float(expected[u]) + x[u]))
                        : 0u;
#pragma unroll
    for (int u = 0; u < N; ++u)
        while (seen[u] != expected[u]) {
            expected[u] = seen[u];
            seen[u] = atomicCAS(reinterpret_cast<unsigned*>(at[u]), expected[u],
                                __float_as_uint(__uint_as_float(expected[u]) + x[u]));
        }
}

/// Stores a float4 to 16-byte aligned shared memory in one instruction (the compiler split the
/// float4 stores of the staged rows into four). The "memory" clobber keeps the plain reads of
/// the rows after it (and the last tile's reads before it), which the asm would not order else.
__device__ __forceinline__ void storeShared4(float* at, float4 v) {
    asm volatile(
        "st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(uint32_t(__cvta_generic_to_shared(at))),
        "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
        : "memory");
}

/// Keeps v of landmark j in a group's smallest value (with its landmark) and second smallest.
__device__ __forceinline__ void keepTwo(float& first, float& second, int& which, float v, int j) {
    second = fminf(second, fmaxf(first, v));
    const bool better = v < first;
    first = better ? v : first;
    which = better ? j : which;
}

/// Keeps a packed value p (a value whose low bits hold its landmark's index in the group) in a
/// group's smallest and second smallest: fminf and fmaxf return one of their inputs bit for bit,
/// so the smallest carries its landmark without a compare and two selects.
__device__ __forceinline__ void keepTwoPacked(float& first, float& second, float p) {
    second = fminf(second, fmaxf(first, p));
    first = fminf(first, p);
}

/// The block's float sums into the global double sums, then cleared (the whole block calls it).
template <int STRIDE>
__device__ void flushSums(const NearestArgs& a, float* sums, unsigned* counts) {
    __syncthreads();
    for (int e = threadIdx.x; e < a.g * a.d; e += kThreads) {
        const int j = e / a.d, t = e - j * a.d;
        float& value = sums[j * STRIDE + t];
        if (counts[j] > 0) atomicAdd(a.sums + e, double(value));
        value = 0.0f;
    }
    __syncthreads();  // every count has been read
    for (int j = threadIdx.x; j < a.g; j += kThreads) {
        if (counts[j] > 0) atomicAdd(a.counts + j, (unsigned long long)counts[j]);
        counts[j] = 0;
    }
    __syncthreads();
}

template <int STRIDE, bool FUSED, bool PACKED, bool WARPGROUP>
__global__ void __launch_bounds__(kThreads, 1)
    nearestKernel(const NearestArgs a, const NearestLayout lay) {
#if __CUDA_ARCH__ >= 800
    constexpr bool kWarpgroup = WARPGROUP && kWarpgroupBuilt;
    constexpr int kRow = STRIDE < 32 ? 32 : STRIDE;  // halfFragmentWidth
    constexpr int kSteps = kRow / 16, kVec = STRIDE / 4, kLd = STRIDE + 4;
    constexpr int kValuesPerLane = (STRIDE + 31) / 32;  // a row's values per lane in the sums
    extern __shared__ float4 shared[];
    float* base = reinterpret_cast<float*>(shared);
    const float4* frags = reinterpret_cast<const float4*>(base + lay.frags);
    const float2* norms = reinterpret_cast<const float2*>(base + lay.norms);
    float* sums = base + lay.sums;
    unsigned* counts = reinterpret_cast<unsigned*>(base + lay.counts);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, gq = lane >> 2, t4 = lane & 3;
    float* rows = base + lay.warpArea + size_t(warp) * lay.perWarp;  // 32 x kLd
    float* merge = rows + 32 * kLd;                                  // 32 x kMergeLd
    const NearestLandmarks& L = a.prep;
    const float minusTwoOverS2 = -2.0f / (L.scale * L.scale);
    // PACKED: a value's low indexBits bits are replaced by its landmark's index in the group.
    const uint32_t indexMask = (1u << lay.indexBits) - 1u;

    // kWarpgroup: the part's FP16 high parts, then (part x kRow x 2 bytes on) its low parts, in
    // warpgroup MMA's B layout (the same bytes as the fragments).
    char* highB = reinterpret_cast<char*>(base + lay.frags);
    char* lowB = highB + size_t(lay.part) * kRow * 2;
    const uint64_t highDesc = kWarpgroup ? wgmma::descriptor(highB, 16 * kRow) : 0;
    const uint64_t lowDesc = kWarpgroup ? wgmma::descriptor(lowB, 16 * kRow) : 0;

    // Part q of the landmarks into shared memory, by the whole block.
    int resident = -1;
    auto loadPart = [&](int q) {
        __syncthreads();  // every warp has finished with the last part
        const int first = q * lay.part, width = lay.width(q);
        const float4* src =
            reinterpret_cast<const float4*>(L.fragments) + size_t(first) * kSteps * 4;
        if (kWarpgroup) {
            // Fragment e of tile nb and k-step ks: lane l's landmark 8 nb + l / 4, its values
            // 16 ks + 2 (l mod 4) and the next (b0, x and z), and 8 on (b1, y and w).
            for (int e = tid; e < width * kSteps * 4; e += kThreads) {
                const float4 v = __ldg(src + e);
                const int l = e & 31, ks = (e >> 5) % kSteps, nb = (e >> 5) / kSteps;
                const uint32_t n = uint32_t(8 * nb + (l >> 2)), k = uint32_t(16 * ks + 2 * (l & 3));
                const uint32_t b0 = wgmma::warpgroupB(n, k, kRow),
                               b1 = wgmma::warpgroupB(n, k + 8, kRow);
                *reinterpret_cast<float*>(highB + b0) = v.x;
                *reinterpret_cast<float*>(highB + b1) = v.y;
                *reinterpret_cast<float*>(lowB + b0) = v.z;
                *reinterpret_cast<float*>(lowB + b1) = v.w;
            }
            wgmma::fenceSharedStores();
        } else {
            for (int e = tid; e < width * kSteps * 4; e += kThreads)
                copy16(base + lay.frags + 4 * e, src + e);
        }
        for (int e = tid; e < width / 4; e += kThreads)
            copy16(base + lay.norms + 4 * e, L.norms + first + 4 * e);
        commitCopies();
        waitCopiesBut<0>();
        __syncthreads();
        resident = q;
    };
    if (FUSED)
        for (size_t e = tid; e < lay.warpArea - lay.sums; e += kThreads) base[lay.sums + e] = 0.0f;
    if (lay.parts == 1) loadPart(0);  // its barriers also order the cleared sums

    // The rows of the warp's tile of batch b, coalesced (zeros past the last cell): lane l holds
    // float4 (l + 32 i) mod kVec of row (l + 32 i) / kVec in v[i].
    // (Two loops on the uniform a.cells: one address per element served both, and the listed
    // cells' index loads, parameter reloads and selects cost instructions in every tile.)
    auto fetch = [&](size_t b, float4(&v)[kVec]) {
        const size_t q0 = (b + warp) * 32;
        const size_t have = q0 >= a.n ? 0 : a.n - q0 < 32 ? a.n - q0 : 32;
        const float4* src = reinterpret_cast<const float4*>(a.points);
        if (a.cells) {
            // A listed cell's row lies wherever it is; its kVec float4s stay together.
#pragma unroll
            for (int i = 0; i < kVec; ++i) {
                const size_t row = size_t((lane + 32 * i) / kVec);
                v[i] = row < have
                           ? src[size_t(a.cells[q0 + row]) * kVec + size_t((lane + 32 * i) % kVec)]
                           : make_float4(0, 0, 0, 0);
            }
        } else {
            // An index, not a pointer: past the last cell the tile's start lies beyond the rows.
            const size_t tile = q0 * kVec + size_t(lane);
#pragma unroll
            for (int i = 0; i < kVec; ++i)
                v[i] = size_t((lane + 32 * i) / kVec) < have ? src[tile + size_t(32 * i)]
                                                             : make_float4(0, 0, 0, 0);
        }
    };
    // Rows of at most 32 floats are fetched a tile ahead, so that their loads run during the
    // scan of the tile before (with 8 warps a multiprocessor, little else hides them).
    constexpr bool kAhead = kVec <= 8;
    const size_t batchStride = size_t(gridDim.x) * kWarps;
    float4 ahead[kVec];
    if (kAhead) fetch(size_t(blockIdx.x) * kWarps, ahead);

    double inertia = 0;
    unsigned long long skipped = 0, scans = 0, lone = 0;
    int sinceFlush = 0, iteration = 0;
    const size_t tiles = (a.n + 31) / 32;
    for (size_t batch = size_t(blockIdx.x) * kWarps; batch < tiles;
         batch += batchStride, ++iteration) {
        const size_t p0 = (batch + warp) * 32, p = p0 + lane;
        const bool active = p < a.n;

        // The warp's rows into its scratch (the rows fetched ahead first, so that their registers
        // take the next tile's loads without copies; the stores' clobber issues those loads
        // after the stores), and the next tile's loads started.
        {
            auto stage = [&](const float4(&v)[kVec]) {
#pragma unroll
                for (int i = 0; i < kVec; ++i) {
                    const int e = lane + 32 * i;
                    storeShared4(rows + (e / kVec) * kLd + 4 * (e % kVec), v[i]);
                }
            };
            if (kAhead) {
                stage(ahead);
                fetch(batch + batchStride, ahead);
            } else {
                float4 v[kVec];
                fetch(batch, v);
                stage(v);
            }
        }
        __syncwarp();

        // The lane's own cell: |x - m|^2 and whether a coordinate is NaN or infinite.
        float r2 = 0;
        bool bad = false;
        {
            const float4* own = reinterpret_cast<const float4*>(rows + lane * kLd);
            const float4* m4 = reinterpret_cast<const float4*>(L.centre);
#pragma unroll
            for (int c = 0; c < kVec; ++c) {
                const float4 v = own[c], m = __ldg(m4 + c);
                bad = bad || !(isfinite(v.x) && isfinite(v.y) && isfinite(v.z) && isfinite(v.w));
                const float c0 = v.x - m.x, c1 = v.y - m.y, c2 = v.z - m.z, c3 = v.w - m.w;
                r2 = fmaf(c0, c0, fmaf(c1, c1, fmaf(c2, c2, fmaf(c3, c3, r2))));
            }
        }

        // Split A fragments: register q of tile mt and k-step ks holds row 16 mt + gq (+ 8 for
        // odd q), columns 16 ks + 2 t4 and the next (+ 8 for q >= 2), of (x - m) s. A non-finite
        // value spoils only its own row's products (that cell is skipped).
        uint32_t aHi[2][kSteps][4], aLo[2][kSteps][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int ks = 0; ks < kSteps; ++ks)
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const int row = 16 * mt + gq + 8 * (q & 1),
                              col = 16 * ks + 2 * t4 + 8 * (q >> 1);
                    float x0 = 0.0f, x1 = 0.0f;
                    if (col < STRIDE) {
                        const float2 v = *reinterpret_cast<const float2*>(rows + row * kLd + col);
                        const float2 m = __ldg(reinterpret_cast<const float2*>(L.centre + col));
                        x0 = (v.x - m.x) * L.scale;
                        x1 = (v.y - m.y) * L.scale;
                    }
                    splitHalf2(x0, x1, aHi[mt][ks][q], aLo[mt][ks][q]);
                }

        // The scan: per slot s and column c, the smallest v with its landmark and the second.
        float first[4][2], second[4][2];
        int which[4][2];
#pragma unroll
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int c = 0; c < 2; ++c) first[s][c] = second[s][c] = FLT_MAX, which[s][c] = 0;
        // The products of step `step` of the part in shared memory: per k-step the products
        // lo.hi, hi.lo and hi.hi of each chain, as splitMma adds them (the same sums), issued
        // term by term over the eight chains so that neighbouring products do not wait for each
        // other. acc[nt][mt][2 h + c]: cell 16 mt + 8 h + gq (slot 2 mt + h), landmark 32 step +
        // 8 nt + 2 t4 + c of the part.
        auto products = [&](int step, float(&acc)[4][2][4]) {
#pragma unroll
            for (int nt = 0; nt < 4; ++nt)
#pragma unroll
                for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) acc[nt][mt][e] = 0.0f;
#pragma unroll
            for (int ks = 0; ks < kSteps; ++ks) {
                float4 b[4];
#pragma unroll
                for (int nt = 0; nt < 4; ++nt)
                    b[nt] = frags[((4 * step + nt) * kSteps + ks) * 32 + lane];
#pragma unroll
                for (int nt = 0; nt < 4; ++nt)
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt)
                        mmaHalf(acc[nt][mt], aLo[mt][ks], b[nt].x, b[nt].y);
#pragma unroll
                for (int nt = 0; nt < 4; ++nt)
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt)
                        mmaHalf(acc[nt][mt], aHi[mt][ks], b[nt].z, b[nt].w);
#pragma unroll
                for (int nt = 0; nt < 4; ++nt)
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt)
                        mmaHalf(acc[nt][mt], aHi[mt][ks], b[nt].x, b[nt].y);
            }
        };
        // kWarpgroup: the same products and sums by the warpgroup's tensor cores, B read from
        // shared memory (4 warps x 32 cells x 32 landmarks a product, 3 kSteps of them a step);
        // asynchronous, committed as one group. Bit for bit the m16n8k16 products' values (checked
        // on the H200 over 10^8 cells).
        auto warpgroupProducts = [&](int step, float(&acc)[4][2][4]) {
            wgmma::settle(acc);  // the last comparisons' reads of acc stay before the products
            wgmma::fence();
#pragma unroll
            for (int ks = 0; ks < kSteps; ++ks) {
                const uint64_t at =
                    wgmma::warpgroupB(uint32_t(32 * step), uint32_t(16 * ks), kRow) >> 4;
                const uint64_t high = highDesc + at, low = lowDesc + at;
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) wgmma::product32(acc, mt, aLo[mt][ks], high, ks > 0);
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) wgmma::product32(acc, mt, aHi[mt][ks], low, 1);
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) wgmma::product32(acc, mt, aHi[mt][ks], high, 1);
            }
            wgmma::commit();
        };
        // The values of a step into the groups' two smallest.
        auto keep = [&](int step, int offset, const float(&acc)[4][2][4]) {
            const int j0 = offset + 32 * step + 2 * t4;
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
                const float2 nb = norms[16 * step + 4 * nt + t4];
                // j / 8 of this nt's landmarks (2 t4 + c < 8): the same for both columns.
                const uint32_t index = uint32_t((offset + 32 * step) / 8 + nt);
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const int j = j0 + 8 * nt + c;
#pragma unroll
                    for (int s = 0; s < 4; ++s) {
                        const float v =
                            fmaf(minusTwoOverS2, acc[nt][s >> 1][2 * (s & 1) + c], c ? nb.y : nb.x);
                        if (PACKED)
                            keepTwoPacked(
                                first[s][c], second[s][c],
                                __uint_as_float((__float_as_uint(v) & ~indexMask) | index));
                        else
                            keepTwo(first[s][c], second[s][c], which[s][c], v, j);
                    }
                }
            }
        };
        for (int k = 0; k < lay.parts; ++k) {
            const int q = (iteration & 1) ? lay.parts - 1 - k : k;
            if (q != resident) loadPart(q);
            const int offset = q * lay.part, steps = lay.width(q) / 32;  // even: 64 a padding
            // The steps to compute, `count` of them: every step of the part, or (a.tileSteps, one
            // part of at most 32 steps) those the warpgroup's cells need, lane u holding the
            // u-th. An odd count takes one step more, a step not needed (its landmarks only add
            // candidates that lose), for the steps go two at a time.
            int count = steps, listed = lane;
            if (a.tileSteps) {
                const size_t group = batch / 4 + size_t(warp >> 2);
                const uint32_t all = steps >= 32 ? ~0u : (1u << steps) - 1u;
                uint32_t needed = group < (a.n + 127) / 128 ? a.tileSteps[group] & all : 0u;
                if (__popc(needed) & 1) {
                    const uint32_t spare = ~needed & all;
                    needed |= spare & (0u - spare);
                }
                count = __popc(needed);
                uint32_t rest = needed;
                for (int u = 0; u < lane && rest; ++u) rest &= rest - 1;
                listed = rest ? __ffs(rest) - 1 : 0;
            }
            const auto stepAt = [&](int u) {
                return a.tileSteps ? __shfl_sync(0xffffffffu, listed, u) : u;
            };
            // Two steps at a time: the products of the second run on the tensor cores while the
            // comparisons of the first take the other pipes (two warps a scheduler leave little
            // else to overlap them).
            float accA[4][2][4], accB[4][2][4];
            if (kWarpgroup) {
                // Steps in chunks whose pipelines drain at their ends (ptxas serialises the
                // products where a loop's back edge leaves a group in flight): each chunk's next
                // step runs on the tensor cores while the warps compare the last.
                // s0 and u count places in the list of steps (stepAt).
                auto chunk = [&](auto countC, int s0) {
                    constexpr int kCount = decltype(countC)::value;
                    warpgroupProducts(stepAt(s0), accA);
#pragma unroll
                    for (int u = 0; u < kCount; u += 2) {
                        warpgroupProducts(stepAt(s0 + u + 1), accB);
                        wgmma::wait<1>();
                        wgmma::settle(accA);
                        keep(stepAt(s0 + u), offset, accA);
                        if (u + 2 < kCount) {
                            warpgroupProducts(stepAt(s0 + u + 2), accA);
                            wgmma::wait<1>();
                        } else {
                            wgmma::wait<0>();
                        }
                        wgmma::settle(accB);
                        keep(stepAt(s0 + u + 1), offset, accB);
                    }
                };
                int at = 0;
                for (; at + kWarpgroupChunk <= count; at += kWarpgroupChunk)
                    chunk(std::integral_constant<int, kWarpgroupChunk>{}, at);
                for (; at < count; at += 2) chunk(std::integral_constant<int, 2>{}, at);
            } else if (count > 0) {
                products(stepAt(0), accA);
                for (int at = 0; at < count; at += 2) {
                    products(stepAt(at + 1), accB);
                    keep(stepAt(at), offset, accA);
                    if (at + 2 < count) products(stepAt(at + 2), accA);
                    keep(stepAt(at + 1), offset, accB);
                }
            }
        }

        // Each cell's 8 groups (4 lanes x 2 columns) into its own lane's row of the merge area.
#pragma unroll
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                float* at = merge + (8 * s + gq) * kMergeLd + 2 * t4 + c;
                at[0] = first[s][c];
                at[8] = second[s][c];
                if (!PACKED) at[16] = __int_as_float(which[s][c]);
            }
        __syncwarp();
        const float* mine = merge + lane * kMergeLd;
        float v1 = FLT_MAX;
#pragma unroll
        for (int k = 0; k < 8; ++k) v1 = fminf(v1, mine[k]);
        const float r = sqrtf(r2), span = r + L.radius;
        const float margin =
            L.marginProduct * r * L.radius + L.marginSpan * span + L.marginSquare * span * span;
        float limit = v1 + margin;
        const float rho = __uint_as_float(uint32_t(127 - 23 + lay.indexBits) << 23);
        if (PACKED) {
            // A packed value differs from its value by at most (2^bits - 1) ulps of it, both the
            // approximate winner's and a candidate's; both values lie within B of zero (the
            // derivation at the top), whose ulp bounds theirs. 2^(bits + 1) ulps of B leave two
            // ulps for the rounding of the limit; FLT_MIN covers values below the normal range.
            const float B = (fabsf(v1) + margin) * (1.0f + 2.2f * rho);
            const float ulpB = __uint_as_float(__float_as_uint(B) & 0x7f800000u) * 0x1p-23f;
            limit = v1 + margin + (ulpB * float(2u << lay.indexBits) + FLT_MIN);
        }
        // Bounded: the limit holds for this cell (a NaN fails the tests). A group whose second
        // value is within the limit is ambiguous: a landmark of it other than its smallest may
        // be the winner. Settled: bounded with no ambiguous group, so that every landmark within
        // the limit is a group's smallest.
        bool bounded = r <= L.reach && limit < FLT_MAX;
        uint32_t candidates = 0, ambiguous = 0;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const bool near = mine[k] <= limit, secondFar = mine[8 + k] > limit;
            bounded = bounded && (secondFar || mine[8 + k] <= limit);
            candidates |= uint32_t(near) << k;
            ambiguous |= uint32_t(!secondFar) << k;
            // A packed padding landmark (FLT_MAX with index bits) just below a limit near FLT_MAX.
            if (PACKED)
                bounded = bounded && !(near && 8 * (__float_as_uint(mine[k]) & indexMask) + k >=
                                                   uint32_t(a.g));
        }
        const bool settled = bounded && ambiguous == 0;

        // The exact distances of the candidates outside ambiguous groups (the exact scan takes
        // those groups); (distance, index) order picks the winner.
        float best = FLT_MAX;
        int winner = INT_MAX;
        candidates &= ~ambiguous;
        // One candidate in a settled cell is its winner; where no distance is asked of the pass
        // it is left to the sums pass (-1). Its exact distance is at most its value (v1, the
        // smallest) and |x - m|^2 plus the slack the lower bound below takes off, the upper
        // bound written for the step bounds; a cell whose bound is not below FLT_MAX is
        // measured, for an overflowing distance skips it.
        const float loneUpper =
            ((r2 + v1) + (2.0f * (limit - v1) + (PACKED ? 2.0f * rho * fabsf(v1) : 0.0f))) *
            (1.0f + 0x1p-20f);
        const bool alone = !FUSED && !a.winnerDistances && settled && !bad && candidates != 0 &&
                           (candidates & (candidates - 1)) == 0 && loneUpper < FLT_MAX;
        // A slot's landmark: its own index, the one rows, results and ties go by.
        const auto landmarkOf = [&](int slot) {
            return a.slotLandmark ? int(__ldg(a.slotLandmark + slot)) : slot;
        };
        if (active && alone) {
            const int k = __ffs(candidates) - 1;
            winner = landmarkOf(PACKED ? int(8 * (__float_as_uint(mine[k]) & indexMask)) + k
                                       : __float_as_int(mine[16 + k]));
            best = -1.0f;
        } else if (active && bounded && !bad) {
            float4 x[kVec];
#pragma unroll
            for (int c = 0; c < kVec; ++c)
                x[c] = reinterpret_cast<const float4*>(rows + lane * kLd)[c];
            const float4* landmarkRows = reinterpret_cast<const float4*>(a.landmarks);
            auto takeCandidate = [&]() {
                const int k = __ffs(candidates) - 1;
                candidates &= candidates - 1;
                return landmarkOf(PACKED ? int(8 * (__float_as_uint(mine[k]) & indexMask)) + k
                                         : __float_as_int(mine[16 + k]));
            };
            // Two candidates at a time: their rows' loads (from L2 where the fragments fill
            // shared memory) and their sums' chains overlap; the updates keep the old order. A
            // lone last candidate is measured twice (j1 = j0): the second update changes
            // nothing.
            while (candidates) {
                const int j0 = takeCandidate();
                const int j1 = candidates ? takeCandidate() : j0;
                const float4* row0 = landmarkRows + size_t(j0) * kVec;
                const float4* row1 = landmarkRows + size_t(j1) * kVec;
                const float d0 = detail::squaredDistance(x, [&](int c) { return __ldg(row0 + c); });
                const float d1 = detail::squaredDistance(x, [&](int c) { return __ldg(row1 + c); });
                if (d0 < best || (d0 == best && j0 < winner)) best = d0, winner = j0;
                if (d1 < best || (d1 == best && j1 < winner)) best = d1, winner = j1;
            }
        }
        uint32_t assigned = kSkippedPoint;  // inactive lanes add nothing
        if (active) {
            const size_t cell = a.cells ? size_t(a.cells[p]) : p;  // where its results go
            // Only the ambiguous groups go to the exact scan where the bound holds; all of them
            // where it does not.
            const bool groupScan = !bad && bounded && !settled && a.g <= kMaxGroupScanLandmarks;
            if (!bad)
                assigned = settled && best < FLT_MAX ? uint32_t(winner)
                           : groupScan               ? kGroupScan | (ambiguous << 16) |
                                             (best < FLT_MAX ? uint32_t(winner) : kNoWinner)
                                       : kNeedsScan;
            a.assign[cell] = assigned;
            a.dist[cell] = assigned < uint32_t(a.g) || groupScan ? best : 0.0f;
            scans += assigned == kNeedsScan || groupScan;
            lone += alone;
            if (a.lower) {
                // Every other landmark's value is at least vLow: a group's smallest, or its
                // second (the winner's group); D_j >= v_j + |x - m|^2 - E. The slack takes the
                // limit's whole margin twice (E, the rounding of r2 and of this sum), and a
                // packed value's index bits (below 2^bits ulps of it).
                float lowerSquared = bad ? INFINITY : 0.0f;
                if (!bad && settled && best < FLT_MAX) {
                    const int own = winner & 7;
                    float vLow = mine[8 + own];
#pragma unroll
                    for (int k = 0; k < 8; ++k) vLow = k == own ? vLow : fminf(vLow, mine[k]);
                    const float slack =
                        2.0f * (limit - v1) + (PACKED ? 2.0f * rho * fabsf(vLow) : 0.0f);
                    // Finite: +infinity marks only the skipped cells.
                    lowerSquared =
                        fminf(fmaxf(0.0f, (r2 + vLow) - slack) * (1.0f - 0x1p-20f), FLT_MAX);
                    // Its twins, which the products never pass, lie exactly as far.
                    if (L.twinned && L.twinned[winner]) lowerSquared = 0.0f;
                }
                const float upperSquared = alone ? loneUpper : best < FLT_MAX ? best : 0.0f;
                a.lower[cell] = cell_bounds::lowerOf(lowerSquared);
                a.upper[cell] = cell_bounds::upperOf(upperSquared);
            }
            if (FUSED) {
                skipped += bad;
                if (assigned < uint32_t(a.g)) inertia += double(best);
            }
        }

        if (FUSED) {
            // Lane t adds dimension t (t + 32) of the staged rows, 8 cells at a time; each lane
            // counts its own cell.
            for (int i0 = 0; i0 < 32; i0 += 8) {
                uint32_t j[8];
#pragma unroll
                for (int u = 0; u < 8; ++u) j[u] = __shfl_sync(0xffffffffu, assigned, i0 + u);
#pragma unroll
                for (int k = 0; k < kValuesPerLane; ++k) {
                    const int t = lane + 32 * k;
                    float* at[8];
                    float x[8];
#pragma unroll
                    for (int u = 0; u < 8; ++u) {
                        const bool use = j[u] < uint32_t(a.g) && t < a.d;
                        at[u] = use ? sums + size_t(j[u]) * STRIDE + t : nullptr;
                        x[u] = use ? rows[(i0 + u) * kLd + t] : 0.0f;
                    }
                    addShared<8>(at, x);
                }
            }
            if (assigned < uint32_t(a.g)) atomicAdd(counts + assigned, 1u);
        }
        __syncwarp();  // the rows and the merge area are written again by the next tile
        if (FUSED && ++sinceFlush == kFlushBatches) {
            sinceFlush = 0;
            flushSums<STRIDE>(a, sums, counts);
        }
    }
    if (FUSED) flushSums<STRIDE>(a, sums, counts);

    for (int o = 16; o > 0; o >>= 1) {
        inertia += __shfl_down_sync(0xffffffffu, inertia, o);
        skipped += __shfl_down_sync(0xffffffffu, skipped, o);
        scans += __shfl_down_sync(0xffffffffu, scans, o);
        lone += __shfl_down_sync(0xffffffffu, lone, o);
    }
    if (lane == 0) {
        if (FUSED && inertia != 0.0) atomicAdd(a.inertia, inertia);
        if (FUSED && skipped != 0) atomicAdd(a.skipped, skipped);
        if (a.scans && scans != 0) atomicAdd(a.scans, scans);
        if (a.lone && lone != 0) atomicAdd(a.lone, lone);
    }
#endif
}

/// Writes whether the device code the runtime loaded for this file has warpgroup MMA (its sm_90a
/// image; PTX of another architecture compiled for the device has not).
__global__ void warpgroupBuiltKernel(int* built) {
    *built = kWarpgroupBuilt ? 1 : 0;
}

/// Whether a cell's assignment leaves it to the exact scan (all groups or some).
__device__ __forceinline__ bool needsScan(uint32_t assigned) {
    return assigned == kNeedsScan || (assigned & 0xff000000u) == kGroupScan;
}

/// Landmark slots of the exact scan's rows in shared memory: group by group (landmark j in slot
/// (j mod 8) G8 + j / 8, G8 = ceil(g / 8)), so that the lanes' reads of one group's consecutive
/// landmarks meet in no bank.
__host__ __device__ inline int scanSlots(int g) {
    return (g + 7) / 8 * 8;
}

/// The exact scan of the cells the products left unsettled: one warp per cell, for each group
/// to scan (all 8, or the ambiguous ones: landmarks j with j mod 8 in the cell's groups) lane l
/// takes the group's landmarks l, l + 32, ... two at a time, and the warp keeps the least
/// (distance, index), beginning from the settled groups' best. With ROWS the block first copies
/// the landmark rows into shared memory, STRIDE + 1 floats apart in group order (scanSlots), so
/// that the lanes' reads of 32 different rows meet in no bank (from global memory each such read
/// touches 32 cache lines, which made the scan the cost of a step).
template <int STRIDE, bool FUSED, bool ROWS>
__global__ void __launch_bounds__(kScanThreads, 1) nearestScanKernel(const NearestArgs a) {
    constexpr int kLd = STRIDE + 1, kVec = STRIDE / 4;
    extern __shared__ float4 scanShared[];
    float* rows = reinterpret_cast<float*>(scanShared);
    const int perGroup = scanSlots(a.g) / 8;
    // A slot's landmark (NearestArgs::slotLandmark): the groups are the pass's, of slots.
    const auto landmarkOf = [&](int slot) {
        return a.slotLandmark ? int(__ldg(a.slotLandmark + slot)) : slot;
    };
    if (ROWS) {
        for (int e = threadIdx.x; e < a.g * STRIDE; e += kScanThreads) {
            const int j = e / STRIDE, t = e - j * STRIDE;
            rows[((j & 7) * perGroup + (j >> 3)) * kLd + t] =
                a.landmarks[size_t(landmarkOf(j)) * STRIDE + t];
        }
        __syncthreads();
    }
    const int lane = threadIdx.x & 31;
    const size_t warpIndex = (size_t(blockIdx.x) * kScanThreads + threadIdx.x) >> 5;
    const size_t warps = (size_t(gridDim.x) * kScanThreads) >> 5;
    const float4* landmarkRows = reinterpret_cast<const float4*>(a.landmarks);
    // Squared distance to the landmark of slot 8 i + k in the CPU's arithmetic (difference form,
    // dimension order, each square rounded), from shared or global memory.
    auto distance = [&](const float(&x)[STRIDE], int k, int i) {
        float acc = 0.0f;
        if (ROWS) {
            const float* row = rows + (k * perGroup + i) * kLd;
#pragma unroll
            for (int t = 0; t < STRIDE; ++t) acc = detail::addSquare(acc, x[t] - row[t]);
        } else {
            const float4* row = landmarkRows + size_t(landmarkOf(8 * i + k)) * kVec;
#pragma unroll
            for (int c = 0; c < kVec; ++c) {
                const float4 l = __ldg(row + c);
                acc = detail::addSquare(acc, x[4 * c] - l.x);
                acc = detail::addSquare(acc, x[4 * c + 1] - l.y);
                acc = detail::addSquare(acc, x[4 * c + 2] - l.z);
                acc = detail::addSquare(acc, x[4 * c + 3] - l.w);
            }
        }
        return acc;
    };
    auto keep = [](float& best, int& winner, float d, int j) {
        if (d < best || (d == best && j < winner)) best = d, winner = j;
    };
    double inertia = 0;
    unsigned long long skipped = 0;
    for (size_t p0 = warpIndex * 32; p0 < a.n; p0 += warps * 32) {
        const size_t p = p0 + lane;
        // The lane's cell (a listed one with a.cells).
        const size_t mine = p < a.n && a.cells ? size_t(a.cells[p]) : p;
        uint32_t pending = __ballot_sync(0xffffffffu, p < a.n && needsScan(a.assign[mine]));
        while (pending) {
            const int i = __ffs(pending) - 1;
            pending &= pending - 1;
            const size_t cell = __shfl_sync(0xffffffffu, mine, i);
            const uint32_t code = a.assign[cell];
            const float4* xr = reinterpret_cast<const float4*>(a.points) + cell * kVec;
            float x[STRIDE];
#pragma unroll
            for (int c = 0; c < kVec; ++c) {
                const float4 v = __ldg(xr + c);
                x[4 * c] = v.x, x[4 * c + 1] = v.y, x[4 * c + 2] = v.z, x[4 * c + 3] = v.w;
            }
            float best = FLT_MAX;
            int winner = INT_MAX;
            uint32_t groups = 0xffu;
            if (code != kNeedsScan) {
                groups = (code >> 16) & 0xffu;
                if (lane == 0 && (code & kNoWinner) != kNoWinner)
                    best = a.dist[cell], winner = int(code & kNoWinner);
            }
            while (groups) {
                const int k = __ffs(groups) - 1;
                groups &= groups - 1;
                const int count = (a.g - k + 7) / 8;  // landmarks k, k + 8, ... below g
                for (int g0 = lane; g0 < count; g0 += 64) {
                    // Two independent sums.
                    const int g1 = g0 + 32 < count ? g0 + 32 : g0;
                    const float d1 = distance(x, k, g0), d2 = distance(x, k, g1);
                    keep(best, winner, d1, landmarkOf(8 * g0 + k));
                    keep(best, winner, d2, landmarkOf(8 * g1 + k));
                }
            }
            for (int o = 16; o > 0; o >>= 1) {
                const float otherBest = __shfl_xor_sync(0xffffffffu, best, o);
                const int other = __shfl_xor_sync(0xffffffffu, winner, o);
                keep(best, winner, otherBest, other);
            }
            const bool found =
                best < FLT_MAX;  // as the pass: a cell no landmark reaches is skipped
            if (lane == 0) {
                a.assign[cell] = found ? uint32_t(winner) : kSkippedPoint;
                a.dist[cell] = found ? best : 0.0f;
            }
            if (FUSED) {
                if (found) {
                    for (int t = lane; t < a.d; t += 32)
                        atomicAdd(a.sums + size_t(winner) * a.d + t,
                                  double(a.points[cell * a.stride + t]));
                    if (lane == 0) atomicAdd(a.counts + winner, 1ull), inertia += double(best);
                } else if (lane == 0) {
                    ++skipped;
                }
            }
        }
    }
    if (FUSED && lane == 0) {
        if (inertia != 0.0) atomicAdd(a.inertia, inertia);
        if (skipped != 0) atomicAdd(a.skipped, skipped);
    }
}

/// The split B fragments of the landmarks (NearestLandmarks::fragments) from their padded rows.
__global__ void nearestFragmentsKernel(const float* __restrict__ landmarks, int g, int stride,
                                       const float* __restrict__ centre, float scale, size_t total,
                                       int kSteps, float4* __restrict__ out) {
#if __CUDA_ARCH__ >= 800
    const size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e >= total) return;
    const int lane = int(e % 32), ks = int(e / 32 % size_t(kSteps)), t4 = lane & 3;
    const size_t j = e / 32 / size_t(kSteps) * 8 + size_t(lane >> 2);
    // b0: dimensions 16 ks + 2 t4 and the next; b1: the same + 8. The same float rounding of
    // L - m as the host's norms.
    const auto at = [&](int t) {
        return j < size_t(g) && t < stride ? (landmarks[j * stride + t] - centre[t]) * scale : 0.0f;
    };
    const int col = 16 * ks + 2 * t4;
    uint32_t h0, l0, h1, l1;
    splitHalf2(at(col), at(col + 1), h0, l0);
    splitHalf2(at(col + 8), at(col + 9), h1, l1);
    out[e] = make_float4(__uint_as_float(h0), __uint_as_float(h1), __uint_as_float(l0),
                         __uint_as_float(l1));
#endif
}

template <int STRIDE, bool FUSED, bool PACKED, bool WARPGROUP>
void launchMain(const NearestArgs& a, const NearestLayout& lay, cudaStream_t stream) {
    constexpr auto kernel = nearestKernel<STRIDE, FUSED, PACKED, WARPGROUP>;
    detail::allowSharedBytes<kernel>(lay.bytes());
    const size_t tiles = (a.n + 31) / 32, wanted = (tiles + kWarps - 1) / kWarps;
    const size_t sms = size_t(detail::multiprocessorCount());
    kernel<<<unsigned(wanted < sms ? wanted : sms), kThreads, lay.bytes(), stream>>>(a, lay);
    SEPAL_CUDA_CHECK_LAUNCH("nearestKernel");
}

template <int STRIDE, bool FUSED, bool ROWS>
void launchScan(const NearestArgs& a, cudaStream_t stream) {
    constexpr auto kernel = nearestScanKernel<STRIDE, FUSED, ROWS>;
    const size_t bytes = ROWS ? size_t(scanSlots(a.g)) * (STRIDE + 1) * sizeof(float) : 0;
    detail::allowSharedBytes<kernel>(bytes);
    int perSm = 0;
    SEPAL_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kScanThreads, bytes));
    // The scan reads every assignment (4 bytes a cell) and works on the few cells marked.
    const size_t tiles = (a.n + 31) / 32;
    const size_t wanted = (tiles + kScanThreads / 32 - 1) / (kScanThreads / 32);
    const size_t cap = size_t(detail::multiprocessorCount()) * size_t(perSm > 0 ? perSm : 1);
    kernel<<<unsigned(wanted < cap ? wanted : cap), kScanThreads, bytes, stream>>>(a);
    SEPAL_CUDA_CHECK_LAUNCH("nearestScanKernel");
}

}  // namespace

size_t nearestSharedBytes(int stride, int g) {
    return NearestLayout(g, stride, kNearestPadding, false).bytes();
}

bool nearestPrunes(int g, int stride) {
    const int part = partFor(g, stride, false);
    return part > 0 && NearestLayout(g, stride, part, false).parts == 1 && part <= 1024;
}

bool nearestFusesSums(int g, int stride) {
    return partFor(g, stride, true) > 0;
}

void launchNearestLandmark(const NearestArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const bool fused = a.sums != nullptr;
    const int part = partFor(a.g, a.stride, fused);
    if (part == 0)
        throw InputError("the nearest-landmark kernel has no room for this shape (g = " +
                         std::to_string(a.g) + ", stride = " + std::to_string(a.stride) + ")");
    const NearestLayout lay(a.g, a.stride, part, fused);
    if (a.tileSteps && (fused || a.lower || !a.slotLandmark || lay.parts != 1 || lay.gPad > 1024))
        throw InputError(
            "the nearest kernel computes a tile's steps only over one part of at "
            "most 1024 landmarks in slots, without sums or bounds");
    if (a.slotLandmark && a.lower)
        throw InputError("the nearest kernel's bounds need the landmarks in their own order");
    // The index in the low bits costs a margin of 2^(bits + 1) ulps of the winner's value
    // (bits = 7 at g = 1024); more landmarks keep the index in its own register.
    const bool packed = lay.indexBits <= kMaxPackedBits;
    const auto launch = [&](auto warpgroup) {
        constexpr bool kWarpgroup = decltype(warpgroup)::value;
        detail::withStride<8, 16, 32, 64>(a.stride, [&](auto s) {
            constexpr int kStride = decltype(s)::value;
            if (fused && packed)
                launchMain<kStride, true, true, kWarpgroup>(a, lay, stream);
            else if (fused)
                launchMain<kStride, true, false, kWarpgroup>(a, lay, stream);
            else if (packed)
                launchMain<kStride, false, true, kWarpgroup>(a, lay, stream);
            else
                launchMain<kStride, false, false, kWarpgroup>(a, lay, stream);
        });
    };
#if defined(SEPAL_WGMMA)
    if (nearestUsesWarpgroupProducts(a.g)) return launch(std::true_type{});
#endif
    launch(std::false_type{});
}

bool nearestUsesWarpgroupProducts(int g) {
#if defined(SEPAL_WGMMA)
    const DeviceLimits& device = currentDeviceLimits();
    if (device.major != 9 || device.minor != 0) return false;
    // Asked of the loaded code once a process (several GPUs are taken to be alike).
    static const bool loaded = [] {
        DeviceBuffer<int> built;
        built.reserve(1);
        warpgroupBuiltKernel<<<1, 1>>>(built.get());
        SEPAL_CUDA_CHECK_LAUNCH("warpgroupBuiltKernel");
        int value = 0;
        SEPAL_CUDA_CHECK(cudaMemcpy(&value, built.get(), sizeof(int), cudaMemcpyDeviceToHost));
        return value == 1;
    }();
    if (!loaded) return false;
    const char* set = std::getenv("SEPAL_NEAREST_WGMMA");
    if (set && std::string(set) == "0") return false;
    return (set && std::string(set) == "1") || g >= kWarpgroupFromLandmarks;
#else
    (void)g;
    return false;
#endif
}

void launchNearestScan(const NearestArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    const bool fused = a.sums != nullptr;
    const bool rows = size_t(scanSlots(a.g)) * size_t(a.stride + 1) * sizeof(float) <=
                      detail::maxSharedBytesOptin();
    detail::withStride<8, 16, 32, 64>(a.stride, [&](auto s) {
        constexpr int kStride = decltype(s)::value;
        // The pass adds the sums only where g x (stride + 1) floats fit beside the rest of its
        // layout: the rows always fit then.
        if (fused)
            launchScan<kStride, true, true>(a, stream);
        else if (rows)
            launchScan<kStride, false, true>(a, stream);
        else
            launchScan<kStride, false, false>(a, stream);
    });
}

void NearestLandmarkBuffers::upload(const float* high, size_t g, size_t d, int stride,
                                    const float* padded, cudaStream_t stream) {
    uploadInSlots(high, g, d, stride, padded, nullptr, stream);
}

void NearestLandmarkBuffers::uploadInSlots(const float* high, size_t g, size_t d, int stride,
                                           const float* padded, const uint32_t* slotLandmark,
                                           cudaStream_t stream) {
    const int width = halfFragmentWidth(stride), kSteps = width / 16;
    const size_t gPad = (g + kNearestPadding - 1) / kNearestPadding * kNearestPadding;
    m_centre.assign(size_t(width), 0.0f);
    for (size_t t = 0; t < d; ++t) {
        double sum = 0;
        for (size_t j = 0; j < g; ++j) sum += high[j * d + t];
        m_centre[t] = float(sum / double(g));
    }
    // |b|^2 of b = fl(L - m), the values the fragments split, rounded once.
    m_norms.assign(gPad, FLT_MAX);
    double largest = 0;
    for (size_t j = 0; j < g; ++j) {
        double s = 0;
        for (size_t t = 0; t < d; ++t) {
            const float c = high[j * d + t] - m_centre[t];
            s += double(c) * double(c);
        }
        m_norms[j] = float(s);
        largest = std::max(largest, s);
    }
    markTwins(high, g, d, slotLandmark);
    const float radius = float(std::sqrt(largest)) * (1.0f + 1e-5f) + 1e-30f;
    // A power of two that puts the radius in [8, 16): far below FP16's largest value, so that
    // cells up to 2^11 radii from the centre fit too (as TensorLandmarkBuffers' FP16 copy).
    int exponent = 0;
    std::frexp(radius, &exponent);
    const int power = std::clamp(4 - exponent, -60, 60);
    const float scale = std::ldexp(1.0f, power);
    const double eps = double(2 * width + 8) * 0x1p-22;
    const double tiny = 0x1p-25 * std::sqrt(double(width)) / double(scale);
    m_view.marginProduct = float(2.1 * 2.0 * eps);
    m_view.marginSpan = float(2.1 * 2.0 * tiny);
    m_view.marginSquare = float(2.1 * (1.01 * double(d) + 8.0) * 0x1p-24);
    m_view.scale = scale;
    m_view.radius = radius;
    m_view.reach = radius * scale < 16.0f ? std::ldexp(32768.0f, -power) : -1.0f;
    m_view.gPad = int(gPad);

    m_centreDev.reserve(m_centre.size());
    m_normsDev.reserve(gPad);
    const size_t fragments = gPad / 8 * size_t(kSteps) * 32;
    m_fragmentsDev.reserve(fragments * 4);
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_centreDev.get(), m_centre.data(), m_centre.size() * 4,
                                     cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_normsDev.get(), m_norms.data(), gPad * 4,
                                     cudaMemcpyHostToDevice, stream));
    const unsigned blocks = unsigned((fragments + kFragmentThreads - 1) / kFragmentThreads);
    nearestFragmentsKernel<<<blocks, kFragmentThreads, 0, stream>>>(
        padded, int(g), stride, m_centreDev.get(), scale, fragments, kSteps,
        reinterpret_cast<float4*>(m_fragmentsDev.get()));
    SEPAL_CUDA_CHECK_LAUNCH("nearestFragmentsKernel");
    m_view.fragments = m_fragmentsDev.get();
    m_view.norms = m_normsDev.get();
    m_view.centre = m_centreDev.get();
    m_view.twinned = nullptr;
    if (m_view.twins > 0) {
        m_twinnedDev.reserve(gPad);
        SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_twinnedDev.get(), m_twinned.data(), gPad,
                                         cudaMemcpyHostToDevice, stream));
        m_view.twinned = m_twinnedDev.get();
    }
}

void NearestLandmarkBuffers::markTwins(const float* high, size_t g, size_t d, const uint32_t* own) {
    // Equal rows sort next to each other, the lowest own index first among them.
    std::vector<uint32_t> order(g);
    std::iota(order.begin(), order.end(), 0u);
    const auto row = [&](uint32_t j) { return high + size_t(j) * d; };
    const auto less = [&](uint32_t i, uint32_t j) {
        return std::lexicographical_compare(row(i), row(i) + d, row(j), row(j) + d);
    };
    const auto ownOf = [&](uint32_t j) { return own ? own[j] : j; };
    std::sort(order.begin(), order.end(), [&](uint32_t i, uint32_t j) {
        return less(i, j) || (!less(j, i) && ownOf(i) < ownOf(j));
    });
    m_twinned.assign(m_norms.size(), 0);
    m_view.twins = 0;
    size_t run = 0;  // where the run of equal rows began: its lowest own index
    for (size_t e = 1; e < g; ++e) {
        if (less(order[run], order[e])) {
            run = e;
            continue;
        }
        m_twinned[order[run]] = 1;
        m_norms[order[e]] = FLT_MAX;
        ++m_view.twins;
    }
}

size_t NearestLandmarkBuffers::deviceBytes() const {
    return (m_fragmentsDev.capacity() + m_normsDev.capacity() + m_centreDev.capacity()) *
               sizeof(float) +
           m_twinnedDev.capacity();
}

}  // namespace sepal::cuda
