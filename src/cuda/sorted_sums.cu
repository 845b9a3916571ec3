// The training step's per-landmark sums with each block's points grouped by landmark first, so
// that a warp adds a run of one landmark's points in registers and touches the shared sums once
// per run instead of once per point and dimension. The device adds floats in shared memory by
// compare-and-swap loops (ATOMS.CAST.SPIN), and one loop per point and dimension held the plain
// pass (landmark_sums.cu) at about twice the time of reading the rows.
//
// Decomposition: a persistent grid of one block of 1024 threads per multiprocessor; a block takes
// spans of consecutive points (at most kFlushPoints, so that a float partial sum runs over at
// most as many values as in landmark_sums.cu) and, within a span, batches of kBatch points:
//   1. the threads count each landmark's points in shared bins (native integer atomics) and add
//      their distances; points without a landmark are marked skipped here;
//   2. the bins become offsets (a block scan), and each point's entry (landmark, point) takes
//      the next slot of its landmark: the batch sorted by landmark in shared memory;
//   3. the sorted entries are cut into 32 equal shares, one a warp, and each share into pieces
//      of a stream of lanes, one float4 of a row a lane (8 lanes a row at stride 32, so that a
//      load of the warp takes 4 rows and 12 rows are in flight a warp); a stream adds its
//      rows in registers and adds them to the shared sums whenever the landmark changes.
// After a span, the shared sums go to the global double sums (one atomic per landmark with
// points and dimension), as in landmark_sums.cu. Rows with a non-finite value are skipped and
// marked, and add nothing (as there). Points whose distance the training step left unmeasured (a
// negative distance, as landmark_sums.cu says; with args.landmarks) are marked in phase 1 and
// their distances measured in phase 3 from the rows it reads, in an instantiation of their own.
// Limits: stride 32, 64 or 128; g < 2^18; g x (stride + 2) floats and the batch's entries in
// the device's opt-in shared memory (sortedSumsFit).

#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "cuda/block_sums.cuh"
#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/landmark_sums.h"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

constexpr int kSortThreads = 1024;
constexpr int kSortWarps = kSortThreads / 32;
constexpr int kBatch = 1 << 14;                    // points sorted at a time
constexpr int kPerThread = kBatch / kSortThreads;  // a batch's points a thread reads
constexpr size_t kFlushPoints = size_t(1) << 18;   // points between flushes
constexpr int kPointBits = 14;                     // an entry: landmark << 14 | point
constexpr uint32_t kNoEntry = 0xffffffffu;         // no point in this slot
static_assert(kBatch == 1 << kPointBits, "an entry's point field covers the batch");

/// A stream's register sums of one landmark's run into the shared sums: lane `col` of the stream
/// holds dimensions 4 col to 4 col + 3.
template <int STRIDE>
__device__ __forceinline__ void addRun(const LandmarkSumArgs& a, float* rows, unsigned* counts,
                                       uint32_t landmark, const float4& sum, unsigned points,
                                       int col) {
    if (points == 0) return;
    float* row = rows + size_t(landmark) * STRIDE + 4 * col;
    const int t = 4 * col;
    if (t < a.d) atomicAdd(row, sum.x);
    if (t + 1 < a.d) atomicAdd(row + 1, sum.y);
    if (t + 2 < a.d) atomicAdd(row + 2, sum.z);
    if (t + 3 < a.d) atomicAdd(row + 3, sum.w);
    if (col == 0) atomicAdd(counts + landmark, points);
}

/// Exclusive prefix sums of bins[0, g) in place, by the whole block; returns their total.
__device__ unsigned scanBins(unsigned* bins, int g, unsigned* warpTotals) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int per = (g + kSortThreads - 1) / kSortThreads;
    const int first = tid * per, last = min(first + per, g);
    unsigned mine = 0;
    for (int j = first; j < last; ++j) mine += bins[j];
    unsigned inclusive = mine;
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned up = __shfl_up_sync(0xffffffffu, inclusive, o);
        if (lane >= o) inclusive += up;
    }
    if (lane == 31) warpTotals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const unsigned total = warpTotals[lane];
        unsigned before = total;
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned up = __shfl_up_sync(0xffffffffu, before, o);
            if (lane >= o) before += up;
        }
        warpTotals[lane] = before - total;  // exclusive
        if (lane == 31) warpTotals[32] = before;
    }
    __syncthreads();
    unsigned run = warpTotals[warp] + inclusive - mine;
    for (int j = first; j < last; ++j) {
        const unsigned c = bins[j];
        bins[j] = run;
        run += c;
    }
    const unsigned total = warpTotals[32];
    __syncthreads();
    return total;
}

/// Points [begin, end) (at most kBatch) sorted by landmark in `entries`, then added by runs.
template <int STRIDE, bool MEASURE>
__device__ void addBatch(const LandmarkSumArgs& a, float* rows, unsigned* counts, unsigned* bins,
                         uint32_t* entries, unsigned* warpTotals, uint32_t* keptBits, size_t begin,
                         size_t end, double& inertia, unsigned long long& skipped) {
    constexpr int kLanesPerRow = STRIDE / 4;     // a float4 each
    constexpr int kStreams = 32 / kLanesPerRow;  // rows one load of the warp takes
    // Loads a lane issues before adding (64 registers; the distances measured here take the
    // registers of one).
    constexpr int kRowsInFlight = MEASURE ? 2 : 3;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int count = int(end - begin);
    for (int j = tid; j < a.g; j += kSortThreads) bins[j] = 0;
    __syncthreads();
    // 1. Each landmark's points counted (the skipped ones marked), and their distances added:
    //    coalesced here, where phase 3 would read them one row at a time; phase 3 takes back
    //    the distance of a row it finds non-finite (in double, which leaves the inertia off by
    //    about 2^-53 of that distance). All of a thread's loads are issued before its
    //    atomics, so that their latencies overlap.
    {
        uint32_t b[kPerThread];
        float dist[kPerThread];
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            const int i = u * kSortThreads + tid;
            b[u] = i < count ? a.assign[begin + i] : kSkippedPoint;
            dist[u] = i < count ? a.dist[begin + i] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            const int i = u * kSortThreads + tid;
            if (b[u] < uint32_t(a.g)) {
                atomicAdd(bins + b[u], 1u);
                if (isfinite(dist[u]) && dist[u] >= 0.0f) inertia += double(dist[u]);
            } else if (i < count) {
                a.assign[begin + i] = kSkippedPoint;
                ++skipped;
            }
        }
        // The points left unmeasured (dist negative), one bit each, for phase
        // 3, which measures their distances from the rows it reads (a warp's 32 points are
        // consecutive: one word a warp and round, every word of the batch written).
        if (MEASURE) {
#pragma unroll
            for (int u = 0; u < kPerThread; ++u) {
                const unsigned kept =
                    __ballot_sync(0xffffffffu, b[u] < uint32_t(a.g) && dist[u] < 0.0f);
                if (lane == 0) keptBits[u * kSortWarps + warp] = kept;
            }
        }
    }
    __syncthreads();
    // 2. The counts become offsets, and each point's entry takes the next slot of its landmark
    //    (the assignments read again, from L2: ranks kept in registers across the scan would
    //    take 16 of the 64 registers a thread has).
    const unsigned total = scanBins(bins, a.g, warpTotals);
    {
        uint32_t b[kPerThread];
#pragma unroll
        for (int u = 0; u < kPerThread; ++u) {
            const int i = u * kSortThreads + tid;
            b[u] = i < count ? a.assign[begin + i] : kSkippedPoint;
        }
#pragma unroll
        for (int u = 0; u < kPerThread; ++u)
            if (b[u] < uint32_t(a.g))
                entries[atomicAdd(bins + b[u], 1u)] =
                    (b[u] << kPointBits) | uint32_t(u * kSortThreads + tid);
    }
    __syncthreads();
    // 3. Each warp's share of the sorted entries, cut into kStreams pieces: the lanes of a
    //    stream read one row a load (a float4 each), so that one load instruction of the warp
    //    takes kStreams rows and many rows are in flight (the pass waits on memory).
    const unsigned from = unsigned(uint64_t(total) * warp / kSortWarps);
    const unsigned to = unsigned(uint64_t(total) * (warp + 1) / kSortWarps);
    const unsigned piece = (to - from + kStreams - 1) / kStreams;
    const int stream = lane / kLanesPerRow, col = lane % kLanesPerRow;
    const unsigned streamLanes =
        kLanesPerRow == 32 ? 0xffffffffu : ((1u << kLanesPerRow) - 1u) << (stream * kLanesPerRow);
    const unsigned mineFrom = min(from + stream * piece, to), mineTo = min(mineFrom + piece, to);
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    unsigned points = 0;
    uint32_t landmark = kNoEntry;
    for (unsigned e0 = 0; e0 < piece; e0 += kRowsInFlight) {
        uint32_t entry[kRowsInFlight];
        float4 v[kRowsInFlight];
        // Every row's loads first: several rows in flight.
#pragma unroll
        for (int r = 0; r < kRowsInFlight; ++r) {
            const unsigned q = mineFrom + e0 + r;
            entry[r] = q < mineTo ? entries[q] : kNoEntry;
            const size_t p = begin + (entry[r] & ((1u << kPointBits) - 1u));
            const bool valid = entry[r] != kNoEntry;
            v[r] = valid ? reinterpret_cast<const float4*>(a.points)[p * (STRIDE / 4) + col]
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
#pragma unroll
        for (int r = 0; r < kRowsInFlight; ++r) {
            const bool finite =
                isfinite(v[r].x) && isfinite(v[r].y) && isfinite(v[r].z) && isfinite(v[r].w);
            // Every lane takes part in the vote (and in the sums of a kept point's distance);
            // then each stream acts on its own row.
            const unsigned bad = __ballot_sync(0xffffffffu, entry[r] != kNoEntry && !finite);
            bool kept = false;
            float keptDist = 0.0f;
            if (MEASURE) {
                const uint32_t at = entry[r] & ((1u << kPointBits) - 1u);
                kept = entry[r] != kNoEntry && ((keptBits[at >> 5] >> (at & 31u)) & 1u);
                if (kept) {
                    const float4 l = __ldg(reinterpret_cast<const float4*>(a.landmarks) +
                                           size_t(entry[r] >> kPointBits) * (STRIDE / 4) + col);
                    const float e0 = v[r].x - l.x, e1 = v[r].y - l.y, e2 = v[r].z - l.z,
                                e3 = v[r].w - l.w;
                    keptDist = fmaf(e0, e0, fmaf(e1, e1, fmaf(e2, e2, e3 * e3)));
                }
#pragma unroll
                for (int o = 1; o < kLanesPerRow; o <<= 1)
                    keptDist += __shfl_xor_sync(0xffffffffu, keptDist, o);
            }
            if (entry[r] == kNoEntry) continue;
            if (bad & streamLanes) {
                if (col == 0) {
                    const size_t p = begin + (entry[r] & ((1u << kPointBits) - 1u));
                    a.assign[p] = kSkippedPoint;
                    ++skipped;
                    const float dist = a.dist[p];
                    if (isfinite(dist) && dist >= 0.0f) inertia -= double(dist);
                }
                continue;
            }
            if (kept && col == 0 && isfinite(keptDist)) inertia += double(keptDist);
            const uint32_t b = entry[r] >> kPointBits;
            if (b != landmark) {
                addRun<STRIDE>(a, rows, counts, landmark, sum, points, col);
                landmark = b;
                points = 0;
                sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            sum.x += v[r].x, sum.y += v[r].y, sum.z += v[r].z, sum.w += v[r].w;
            ++points;
        }
    }
    addRun<STRIDE>(a, rows, counts, landmark, sum, points, col);
    __syncthreads();  // the entries and bins are the next batch's
}

template <int STRIDE, bool MEASURE>
__global__ void __launch_bounds__(kSortThreads)
    sortedSumsKernel(const LandmarkSumArgs a, size_t span) {
    extern __shared__ float shared[];
    __shared__ unsigned warpTotals[kSortWarps + 1];
    __shared__ uint32_t keptBits[kBatch / 32];  // a batch's points kept by the bounds
    float* rows = shared;                       // g x stride
    unsigned* counts = reinterpret_cast<unsigned*>(shared + size_t(a.g) * STRIDE);
    unsigned* bins = counts + a.g;
    uint32_t* entries = bins + a.g;
    double inertia = 0;
    unsigned long long skipped = 0;
    const size_t spans = (a.n + span - 1) / span;
    for (size_t s = blockIdx.x; s < spans; s += gridDim.x) {
        const size_t begin = s * span, end = a.n - begin < span ? a.n : begin + span;
        for (size_t e = threadIdx.x; e < size_t(a.g) * (STRIDE + 1); e += kSortThreads)
            shared[e] = 0.0f;
        __syncthreads();
        for (size_t b0 = begin; b0 < end; b0 += kBatch)
            addBatch<STRIDE, MEASURE>(a, rows, counts, bins, entries, warpTotals, keptBits, b0,
                                      end - b0 < size_t(kBatch) ? end : b0 + kBatch, inertia,
                                      skipped);
        // The next span clears the shared sums only after every thread has read them.
        detail::flushBlockSums(a, rows, STRIDE, counts);
        __syncthreads();
    }
    detail::addBlockTotals(a, inertia, skipped);
}

/// Shared memory of the sorted sums: g x (stride + 2) words (sums, counts, bins) and the entries.
size_t sortedSumsBytes(int g, int stride) {
    return size_t(g) * size_t(stride + 2) * sizeof(float) + size_t(kBatch) * sizeof(uint32_t);
}

template <int STRIDE, bool MEASURE>
void launchSorted(const LandmarkSumArgs& a, cudaStream_t stream, int mostBlocks) {
    const size_t bytes = sortedSumsBytes(a.g, a.stride);
    constexpr auto kernel = sortedSumsKernel<STRIDE, MEASURE>;
    detail::allowSharedBytes<kernel>(bytes);
    int perSm = 0;
    SEPAL_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kSortThreads, bytes));
    size_t slots = size_t(perSm > 0 ? perSm : 1) * size_t(detail::multiprocessorCount());
    if (mostBlocks > 0 && size_t(mostBlocks) < slots) slots = size_t(mostBlocks);
    // Spans of equal length, as many per block, none longer than kFlushPoints: a last round
    // with few blocks busy would leave the others idle.
    const size_t rounds = (a.n + slots * kFlushPoints - 1) / (slots * kFlushPoints);
    const size_t span = (a.n + slots * rounds - 1) / (slots * rounds);
    const size_t spans = (a.n + span - 1) / span;
    const unsigned blocks = unsigned(spans < slots ? spans : slots);
    kernel<<<blocks, kSortThreads, bytes, stream>>>(a, span);
    SEPAL_CUDA_CHECK_LAUNCH("sortedSumsKernel");
}

}  // namespace

bool sortedSumsFit(int g, int stride) {
    // The block's static shared memory (the scan's warp totals, the kept points' bits) counts
    // against the same limit.
    constexpr size_t kStaticBytes = (kSortWarps + 1) * sizeof(unsigned) + kBatch / 8;
    return (stride == 32 || stride == 64 || stride == 128) && g > 0 && g < (1 << 18) &&
           sortedSumsBytes(g, stride) + kStaticBytes <= detail::maxSharedBytesOptin();
}

void launchSortedLandmarkSums(const LandmarkSumArgs& a, cudaStream_t stream, int blocks) {
    if (!sortedSumsFit(a.g, a.stride))
        throw InputError("the sorted sums cannot take g = " + std::to_string(a.g) +
                         " landmarks in rows of " + std::to_string(a.stride) + " floats");
    if (a.n == 0) return;
    // The distances measured here in an instantiation of their own (its registers spill).
    const bool measure = a.landmarks != nullptr;
    if (a.stride == 32)
        measure ? launchSorted<32, true>(a, stream, blocks)
                : launchSorted<32, false>(a, stream, blocks);
    else if (a.stride == 64)
        measure ? launchSorted<64, true>(a, stream, blocks)
                : launchSorted<64, false>(a, stream, blocks);
    else
        measure ? launchSorted<128, true>(a, stream, blocks)
                : launchSorted<128, false>(a, stream, blocks);
}

}  // namespace sepal::cuda
