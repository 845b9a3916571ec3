// The pruned nearest pass's preparation (nearest_pruning.h): the grouping and its measures on the
// host, and three device passes: each cell's key (the slot of its last landmark) counted per
// bucket, the cells listed bucket by bucket, and each tile's steps. The counting passes give
// each block a run of cells and gather its counts in shared memory first: global atomics from
// every warp on the same counters wait on one another.

#include "cuda/nearest_pruning.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/common/float_rounding.h"
#include "core/knn/landmark_groups.h"
#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kTileCells = 128;  // a tile: a warpgroup's cells, four runs of 32
/// Cells a block's run of the counting passes holds at least.
constexpr size_t kLeastRun = 16384;
/// Prepared passes over which a grouping is kept at most: the centres and radii are measured
/// afresh every pass, so an old grouping costs only pruning, never a winner (grouping 1024
/// landmarks of 32 dimensions takes a few milliseconds on the host).
constexpr int kRegroupSteps = 8;
/// A grouping is made again sooner where its groups' mean radius has grown by this factor since
/// it was made: a batch SOM's blocks of equal landmarks (one group each, radius 0) part as its
/// neighbourhood shrinks, and the groups then span the map (a pass that skipped 95 % of the
/// products skipped 6 % the next step).
constexpr double kSpreadRegroup = 1.25;
/// The skip test's relative margin on both distances: the float sums' error is below (64 + 3)
/// 2^-24 of a squared distance, in the cell's distances here and in the kernel's exact ones.
constexpr float kMargin = 0x1p-12f;
/// The skip test's absolute margin: a skipped landmark lies at least this far (not squared), so
/// that its squared distance does not round to 0 and tie with a winner at distance 0.
constexpr float kLeastGap = 1e-17f;

/// Blocks that take runs of cells: a few a multiprocessor, each run at least kLeastRun cells.
unsigned runBlocks(size_t n) {
    const size_t most = size_t(std::max(detail::multiprocessorCount(), 1)) * 8;
    const size_t wanted = (n + kLeastRun - 1) / kLeastRun;
    return unsigned(std::max<size_t>(1, std::min(wanted, most)));
}

/// The cells [first, last) of this block when the grid shares n cells in runs.
__device__ void blockRange(size_t n, size_t& first, size_t& last) {
    const size_t run = (n + gridDim.x - 1) / gridDim.x;
    first = min(n, size_t(blockIdx.x) * run);
    last = min(n, first + run);
}

/// Each cell's key (the slot of its last landmark; g where it has none below g), counted per
/// bucket into counts (g + 1, zero before).
__global__ void __launch_bounds__(kThreads)
    slotKeysKernel(const uint32_t* assign, size_t n, int g, const uint32_t* landmarkSlot,
                   uint16_t* keys, unsigned long long* counts) {
    extern __shared__ unsigned shared[];  // g + 1
    for (int b = threadIdx.x; b <= g; b += kThreads) shared[b] = 0;
    __syncthreads();
    size_t first = 0, last = 0;
    blockRange(n, first, last);
    for (size_t p = first + threadIdx.x; p < last; p += kThreads) {
        const uint32_t w = assign[p];
        const unsigned key = w < uint32_t(g) ? landmarkSlot[w] : unsigned(g);
        keys[p] = uint16_t(key);
        atomicAdd(shared + key, 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b <= g; b += kThreads)
        if (shared[b]) atomicAdd(counts + b, (unsigned long long)shared[b]);
}

/// The buckets' counts into their first places (one thread: g + 1 of them).
__global__ void bucketStartsKernel(unsigned long long* counts, int buckets) {
    unsigned long long at = 0;
    for (int b = 0; b < buckets; ++b) {
        const unsigned long long c = counts[b];
        counts[b] = at;
        at += c;
    }
}

/// Lists the cells bucket by bucket: each block takes its places in each bucket with one global
/// add a bucket and writes its cells there through shared cursors (the order within a bucket is
/// arbitrary).
__global__ void __launch_bounds__(kThreads)
    listByKeyKernel(const uint16_t* keys, size_t n, int buckets, unsigned long long* cursor,
                    uint32_t* cells) {
    extern __shared__ unsigned long long base[];  // buckets, then the counts
    unsigned* counts = reinterpret_cast<unsigned*>(base + buckets);
    for (int b = threadIdx.x; b < buckets; b += kThreads) counts[b] = 0;
    __syncthreads();
    size_t first = 0, last = 0;
    blockRange(n, first, last);
    for (size_t p = first + threadIdx.x; p < last; p += kThreads) atomicAdd(counts + keys[p], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < buckets; b += kThreads) {
        base[b] = counts[b] ? atomicAdd(cursor + b, (unsigned long long)counts[b]) : 0;
        counts[b] = 0;
    }
    __syncthreads();
    for (size_t p = first + threadIdx.x; p < last; p += kThreads) {
        const unsigned b = keys[p];
        cells[base[b] + atomicAdd(counts + b, 1u)] = uint32_t(p);
    }
}

/// |x - row|^2 by fused multiply-adds, four coordinates a step (rowAt(v): float4 v of the row):
/// the tile pass's distances, whose rounding its margins cover.
template <int KVEC, class RowAt>
__device__ __forceinline__ float fusedSquaredDistance(const float4 (&x)[KVEC], RowAt rowAt) {
    float s = 0.0f;
#pragma unroll
    for (int v = 0; v < KVEC; ++v) {
        const float4 l = rowAt(v);
        const float e0 = x[v].x - l.x, e1 = x[v].y - l.y, e2 = x[v].z - l.z, e3 = x[v].w - l.w;
        s = fmaf(e0, e0, fmaf(e1, e1, fmaf(e2, e2, fmaf(e3, e3, s))));
    }
    return s;
}

/// What the tile pass reads and writes (device pointers).
struct TileStepsArgs {
    const float* points = nullptr;  // n x STRIDE
    size_t n = 0;
    const uint32_t* assign = nullptr;  // n: each cell's last landmark
    const float* landmarks = nullptr;  // g x STRIDE: the step's landmarks
    int g = 0;
    const float* centres = nullptr;  // groups x STRIDE
    const float* radii = nullptr;    // groups, rounded up
    int groups = 0;
    uint32_t* tileSteps = nullptr;         // ceil(n / 128)
    unsigned long long* needed = nullptr;  // [0] += the steps marked
};

/// Threads a block of the tile pass: eight warps, each on its own 32 cells.
constexpr int kTileThreads = 256;

/// A warp takes runs of 32 consecutive cells in turn (a quarter of a tile), a lane a cell, and
/// ORs into its tile's word the groups that some cell cannot rule out (tileSteps zero before).
/// First for the 32 cells together, lane q for group q: where the run's first cell x_0 lies
/// |x_0 - c_q| from the centre, cell i lies rho_i from x_0 and its nearest within r_i, every cell
/// rules q out when |x_0 - c_q| - R_q > max_i (r_i + rho_i) (the ball: 32 distances a run instead
/// of 32 a cell); then, cell by cell, only the groups the ball kept. A cell with no last landmark
/// below g, or any non-finite distance, rules out none (NaN counts as infinite here: a maximum
/// would drop it). The bits a warp sets first are counted into `needed` (atomicOr's old word).
template <int STRIDE>
__global__ void __launch_bounds__(kTileThreads) tileStepsKernel(const TileStepsArgs a) {
    constexpr int kVec = STRIDE / 4;
    __shared__ float4 centres[32 * kVec];        // group by group, for a lane's own cell
    __shared__ float centresByDim[STRIDE * 32];  // dimension by dimension, for lane q's group
    __shared__ float radii[32];
    // Each warp's 32 rows read whole, every load 4 lines instead of 32 (a lane's own row was
    // 32 lines a load, and the L1 was the pass's limit), and each lane's own row taken back
    // from shared memory (chunks XOR-swizzled by row, so that neither the stores nor a
    // quarter-warp's reads share a bank). Up to a stride of 32: 32 KB for the block's eight runs.
    constexpr bool kStaged = STRIDE <= 32;
    __shared__ float4 staged[kStaged ? (kTileThreads / 32) * 32 * kVec : 1];
    for (int e = threadIdx.x; e < 32 * kVec; e += kTileThreads) {
        const float4 v = e < a.groups * kVec ? reinterpret_cast<const float4*>(a.centres)[e]
                                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        centres[e] = v;
        const int q = e / kVec, t = 4 * (e % kVec);
        centresByDim[t * 32 + q] = v.x, centresByDim[(t + 1) * 32 + q] = v.y;
        centresByDim[(t + 2) * 32 + q] = v.z, centresByDim[(t + 3) * 32 + q] = v.w;
    }
    for (int q = threadIdx.x; q < 32; q += kTileThreads) radii[q] = q < a.groups ? a.radii[q] : 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const uint32_t every = a.groups >= 32 ? ~0u : (1u << a.groups) - 1u;
    const size_t runs = (a.n + 31) / 32;
    const size_t warps = size_t(gridDim.x) * (kTileThreads / 32);
    unsigned long long marked = 0;                                            // lane 0's
    const auto finite = [](float v) { return v < INFINITY ? v : INFINITY; };  // NaN: infinite
    for (size_t run = size_t(blockIdx.x) * (kTileThreads / 32) + threadIdx.x / 32; run < runs;
         run += warps) {
        const size_t p = run * 32 + lane;
        const bool valid = p < a.n;
        float4 x[kVec];
        if constexpr (kStaged) {
            // Lanes past n get zeros: every use of their row is masked by `valid`.
            constexpr int kSwizzle = (kVec < 8 ? kVec : 8) - 1;
            float4* rows = staged + (threadIdx.x / 32) * 32 * kVec;
            const size_t first = run * 32, have = min(size_t(32), a.n - first) * kVec;
            const float4* from = reinterpret_cast<const float4*>(a.points) + first * kVec;
            __syncwarp();  // the last run's rows read
#pragma unroll
            for (int v = 0; v < kVec; ++v) {
                const int e = v * 32 + lane, r = e / kVec, c = e % kVec;
                rows[r * kVec + (c ^ (r & kSwizzle))] =
                    size_t(e) < have ? __ldg(from + e) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            __syncwarp();
#pragma unroll
            for (int v = 0; v < kVec; ++v) x[v] = rows[lane * kVec + (v ^ (lane & kSwizzle))];
        } else {
            const float4* row =
                reinterpret_cast<const float4*>(a.points) + (valid ? p : run * 32) * kVec;
#pragma unroll
            for (int v = 0; v < kVec; ++v) x[v] = __ldg(row + v);
        }
        const uint32_t w = valid ? a.assign[p] : 0u;
        // r: this cell's distance to its last landmark, with the margins (0 for no cell).
        float r = 0.0f;
        if (valid && w < uint32_t(a.g)) {
            const float4* own = reinterpret_cast<const float4*>(a.landmarks) + size_t(w) * kVec;
            const float s = fusedSquaredDistance(x, [&](int v) { return __ldg(own + v); });
            r = finite(sqrtf(s) * (1.0f + kMargin) + kLeastGap);
        } else if (valid) {
            r = INFINITY;
        }
        // rho: this cell's distance to the run's first; lane q: the first's to group q's centre.
        float toFirst = 0.0f, firstToCentre = 0.0f;
#pragma unroll
        for (int v = 0; v < kVec; ++v) {
            const float f[4] = {__shfl_sync(~0u, x[v].x, 0), __shfl_sync(~0u, x[v].y, 0),
                                __shfl_sync(~0u, x[v].z, 0), __shfl_sync(~0u, x[v].w, 0)};
            const float own[4] = {x[v].x, x[v].y, x[v].z, x[v].w};
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const float e = own[k] - f[k], c = f[k] - centresByDim[(4 * v + k) * 32 + lane];
                toFirst = fmaf(e, e, toFirst);
                firstToCentre = fmaf(c, c, firstToCentre);
            }
        }
        const float rho = valid ? finite(sqrtf(toFirst) * (1.0f + kMargin) + kLeastGap) : 0.0f;
        // Cell i rules group q out where |x_0 - c_q| - R_q > r_i + rho_i (the triangle inequality
        // through x_0), so the run needs only the largest sum, at most r_max + rho_max (on the
        // H200 the pass took 3 % less than with the two maxima, the same masks).
        float reach = r + rho;
        for (int o = 16; o > 0; o >>= 1) reach = fmaxf(reach, __shfl_xor_sync(~0u, reach, o));
        uint32_t bits = every;
        if (reach < INFINITY) {
            // The ball: no cell of the run within its bound of any landmark of group `lane`?
            // (An overflowing distance says nothing of how near the group's landmarks lie.)
            const float toCentre = sqrtf(firstToCentre);
            const bool far =
                toCentre < INFINITY && toCentre * (1.0f - kMargin) - radii[lane] > reach;
            uint32_t kept = __ballot_sync(~0u, !far) & every;
            // Cell by cell, the groups the ball kept (a warp's lanes on the same group).
            bits = 0;
            while (kept) {
                const int q = __ffs(kept) - 1;
                kept &= kept - 1;
                const float toCentre =
                    sqrtf(fusedSquaredDistance(x, [&](int v) { return centres[q * kVec + v]; }));
                const bool far = toCentre < INFINITY && toCentre * (1.0f - kMargin) - radii[q] > r;
                if (__any_sync(~0u, valid && !far)) bits |= 1u << q;
            }
        }
        if (lane == 0 && bits) {
            const uint32_t before = atomicOr(a.tileSteps + run / 4, bits);
            marked += unsigned(__popc(bits & ~before));
        }
    }
    if (lane == 0 && marked) atomicAdd(a.needed, marked);
}

/// out[i] = values[cells[i]], or cells[i] where values is null.
__global__ void __launch_bounds__(kThreads)
    gatherListedKernel(const uint32_t* values, const uint32_t* cells, size_t n, uint32_t* out) {
    for (size_t i = size_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
         i += size_t(gridDim.x) * kThreads)
        out[i] = values ? values[cells[i]] : cells[i];
}

/// Blocks of kThreads for `count` items, a thread an item, capped (the kernels loop).
unsigned blocksFor(size_t count) {
    return unsigned(std::max<size_t>(
        1, std::min<size_t>((count + kThreads - 1) / kThreads, size_t(65535) * 64)));
}

}  // namespace

void launchGatherListed(const uint32_t* values, const uint32_t* cells, size_t n, uint32_t* out,
                        cudaStream_t stream) {
    if (n == 0) return;
    gatherListedKernel<<<blocksFor(n), kThreads, 0, stream>>>(values, cells, n, out);
    SEPAL_CUDA_CHECK_LAUNCH("gatherListedKernel");
}

bool NearestPruning::applies(size_t g, int stride) {
    return g > kPruningGroup && g <= 1024 && nearestPrunes(int(g), stride);
}

void NearestPruning::regroup(const float* high, size_t g, size_t d) {
    m_slotLandmark = groupLandmarks(high, g, d, kPruningGroup);
    m_landmarkSlot.assign(g, 0);
    for (size_t s = 0; s < g; ++s) m_landmarkSlot[m_slotLandmark[s]] = uint32_t(s);
    m_g = g;
    m_sinceGrouped = 0;
}

double NearestPruning::measureGroups(const float* high, size_t d, int stride,
                                     std::vector<float>& slotHigh, std::vector<float>& centres,
                                     std::vector<float>& radii) const {
    // The landmarks in slot order, each group's centre (its mean, in float) and radius (the
    // farthest of its landmarks from that float centre, in double, rounded up).
    const size_t g = m_g, groups = (g + kPruningGroup - 1) / kPruningGroup;
    slotHigh.resize(g * d);
    centres.assign(groups * size_t(stride), 0.0f);
    radii.assign(groups, 0.0f);
    for (size_t s = 0; s < g; ++s)
        std::copy_n(high + size_t(m_slotLandmark[s]) * d, d, slotHigh.data() + s * d);
    double total = 0.0;
    for (size_t q = 0; q < groups; ++q) {
        const size_t first = q * kPruningGroup, last = std::min(g, first + kPruningGroup);
        float* centre = centres.data() + q * size_t(stride);
        for (size_t t = 0; t < d; ++t) {
            double sum = 0.0;
            for (size_t s = first; s < last; ++s) sum += slotHigh[s * d + t];
            centre[t] = float(sum / double(last - first));
        }
        double farthest = 0.0;
        for (size_t s = first; s < last; ++s) {
            double sq = 0.0;
            for (size_t t = 0; t < d; ++t) {
                const double e = double(slotHigh[s * d + t]) - double(centre[t]);
                sq += e * e;
            }
            farthest = std::max(farthest, sq);
        }
        radii[q] = floatUp(std::sqrt(farthest) * (1.0 + 1e-9));
        total += radii[q];
    }
    return total / double(groups);
}

bool NearestPruning::prepareLandmarks(NearestArgs& args, const float* high, cudaStream_t stream) {
    const size_t g = size_t(args.g), d = size_t(args.d);
    const int stride = args.stride;
    if (!applies(g, stride)) return false;
    const size_t groups = (g + kPruningGroup - 1) / kPruningGroup;
    m_slotLandmarkDev.reserve(g);
    m_landmarkSlotDev.reserve(g);
    m_rows.reserve(g * size_t(stride));
    m_centres.reserve(groups * size_t(stride));
    m_radii.reserve(groups);
    m_counts.reserve(g + 2);
    m_stride = stride;
    std::vector<float> slotHigh, centres, radii;
    const bool fresh = g != m_g || m_sinceGrouped >= kRegroupSteps;
    if (fresh) regroup(high, g, d);
    double spread = measureGroups(high, d, stride, slotHigh, centres, radii);
    if (!fresh && spread > kSpreadRegroup * m_groupedSpread) {
        regroup(high, g, d);
        spread = measureGroups(high, d, stride, slotHigh, centres, radii);
    }
    if (m_sinceGrouped == 0) m_groupedSpread = spread;
    ++m_sinceGrouped;
    std::vector<float> rows(g * size_t(stride), 0.0f);
    for (size_t s = 0; s < g; ++s)
        std::copy_n(slotHigh.data() + s * d, d, rows.data() + s * size_t(stride));
    // Pageable copies return once the driver holds the bytes: the vectors may go.
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_rows.get(), rows.data(), rows.size() * sizeof(float),
                                     cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_slotLandmarkDev.get(), m_slotLandmark.data(),
                                     g * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_landmarkSlotDev.get(), m_landmarkSlot.data(),
                                     g * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_centres.get(), centres.data(),
                                     centres.size() * sizeof(float), cudaMemcpyHostToDevice,
                                     stream));
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_radii.get(), radii.data(), groups * sizeof(float),
                                     cudaMemcpyHostToDevice, stream));
    m_prepared.uploadInSlots(slotHigh.data(), g, d, stride, m_rows.get(), m_slotLandmark.data(),
                             stream);
    args.prep = m_prepared.view();
    args.slotLandmark = m_slotLandmarkDev.get();
    return true;
}

bool NearestPruning::listBySlot(const uint32_t* assign, size_t n, uint32_t* cells,
                                cudaStream_t stream) {
    if (n == 0) return true;
    const size_t g = m_g;
    try {
        m_keys.reserve(n);
    } catch (const std::exception&) {
        cudaGetLastError();  // the failed allocation's error, not a later launch's
        return false;
    }
    const int buckets = int(g) + 1;
    SEPAL_CUDA_CHECK(
        cudaMemsetAsync(m_counts.get(), 0, size_t(buckets) * sizeof(unsigned long long), stream));
    slotKeysKernel<<<runBlocks(n), kThreads, size_t(buckets) * sizeof(unsigned), stream>>>(
        assign, n, int(g), m_landmarkSlotDev.get(), m_keys.get(), m_counts.get());
    SEPAL_CUDA_CHECK_LAUNCH("slotKeysKernel");
    bucketStartsKernel<<<1, 1, 0, stream>>>(m_counts.get(), buckets);
    SEPAL_CUDA_CHECK_LAUNCH("bucketStartsKernel");
    listByKeyKernel<<<runBlocks(n), kThreads,
                      size_t(buckets) * (sizeof(unsigned long long) + sizeof(unsigned)), stream>>>(
        m_keys.get(), n, buckets, m_counts.get(), cells);
    SEPAL_CUDA_CHECK_LAUNCH("listByKeyKernel");
    return true;
}

bool NearestPruning::markTiles(NearestArgs& args, cudaStream_t stream) {
    const size_t n = args.n, g = m_g;
    if (n == 0 || size_t(args.g) != g || args.stride != m_stride) return false;
    const size_t groups = (g + kPruningGroup - 1) / kPruningGroup;
    const size_t tiles = (n + kTileCells - 1) / kTileCells;
    try {
        m_tileSteps.reserve(tiles);
    } catch (const std::exception&) {
        cudaGetLastError();
        return false;
    }
    SEPAL_CUDA_CHECK(
        cudaMemsetAsync(m_counts.get() + g + 1, 0, sizeof(unsigned long long), stream));
    TileStepsArgs ta;
    ta.points = args.points;
    ta.n = n;
    ta.assign = args.assign;
    ta.landmarks = args.landmarks;
    ta.g = int(g);
    ta.centres = m_centres.get();
    ta.radii = m_radii.get();
    ta.groups = int(groups);
    ta.tileSteps = m_tileSteps.get();
    ta.needed = m_counts.get() + g + 1;
    SEPAL_CUDA_CHECK(cudaMemsetAsync(m_tileSteps.get(), 0, tiles * sizeof(uint32_t), stream));
    // As many blocks as the multiprocessors hold at once, each warp taking runs in turn.
    const size_t runs = (n + 31) / 32;
    detail::withStride<8, 16, 32, 64>(args.stride, [&](auto s) {
        constexpr int kStride = decltype(s)::value;
        // Asked once a stride (every pruned step launches the pass).
        static const int resident = [] {
            int blocks = 1;
            SEPAL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, tileStepsKernel<kStride>, kTileThreads, 0));
            return std::max(blocks, 1);
        }();
        const size_t most = size_t(std::max(detail::multiprocessorCount(), 1)) * size_t(resident);
        const size_t wanted = (runs + kTileThreads / 32 - 1) / (kTileThreads / 32);
        tileStepsKernel<kStride><<<unsigned(std::min(wanted, most)), kTileThreads, 0, stream>>>(ta);
    });
    SEPAL_CUDA_CHECK_LAUNCH("tileStepsKernel");
    m_tiles = tiles;
    m_steps = (g + kNearestPadding - 1) / kNearestPadding * kNearestPadding / kPruningGroup;
    args.tileSteps = m_tileSteps.get();
    return true;
}

double NearestPruning::lastShare() const {
    if (m_tiles == 0) return 1.0;
    unsigned long long needed = 0;
    SEPAL_CUDA_CHECK(
        cudaMemcpy(&needed, m_counts.get() + m_g + 1, sizeof(needed), cudaMemcpyDeviceToHost));
    return double(needed) / (double(m_tiles) * double(m_steps));
}

size_t NearestPruning::deviceBytes() const {
    return (m_slotLandmarkDev.capacity() + m_landmarkSlotDev.capacity() + m_tileSteps.capacity()) *
               sizeof(uint32_t) +
           m_keys.capacity() * sizeof(uint16_t) + m_counts.capacity() * sizeof(unsigned long long) +
           (m_rows.capacity() + m_centres.capacity() + m_radii.capacity()) * sizeof(float) +
           m_prepared.deviceBytes();
}

}  // namespace sepal::cuda
