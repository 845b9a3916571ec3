// The training step's per-landmark sums with each block's points grouped by landmark first, so
// that a warp adds a run of one landmark's points in registers and touches the shared sums once
// per run instead of once per point and dimension. The device adds floats in shared memory by
// compare-and-swap loops (ATOMS.CAST.SPIN), and one loop per point and dimension held the plain
// pass (landmark_sums.cu) at about twice the time of reading the rows.
//
// Decomposition: a persistent grid of one block of 1024 threads per multiprocessor; a block takes
// spans of consecutive points (at most kFlushPoints, so that a float partial sum runs over at
// most as many values as in landmark_sums.cu) and, within a span, batches of kBatch points:
//   1. every thread reads 16 assignments (coalesced) and takes a rank in its landmark's bin
//      (native integer shared atomics); points without a landmark are marked skipped here;
//   2. the bins become offsets (a block scan), and each point's entry (landmark, point) goes to
//      offset + rank: the batch sorted by landmark in shared memory;
//   3. the sorted entries are cut into 32 equal runs, one a warp; lane t adds dimension t (and
//      t + 32, ...) of each point's row (read whole, several rows in flight) in registers, and
//      the warp adds its register sums to the shared sums whenever the landmark changes.
// After a span, the shared sums go to the global double sums (one atomic per landmark with
// points and dimension), as in landmark_sums.cu. Rows with a non-finite value are skipped and
// marked, and add nothing (as there).
// Limits: stride 32, 64 or 128; g < 2^18; g x (stride + 2) floats and the batch's entries in
// the device's opt-in shared memory (sortedSumsFit).

#include <cstdint>

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
constexpr int kPerThread = kBatch / kSortThreads;  // assignments a thread reads
constexpr size_t kFlushPoints = size_t(1) << 18;   // points between flushes
constexpr int kPointBits = 14;                     // an entry: landmark << 14 | point
constexpr uint32_t kNoEntry = 0xffffffffu;         // no point in this slot
static_assert(kBatch == 1 << kPointBits, "an entry's point field covers the batch");

/// The warp's register sums of one landmark's run into the shared sums.
template <int VALUES>
__device__ __forceinline__ void addRun(const LandmarkSumArgs& a, float* rows, unsigned* counts,
                                       uint32_t landmark, const float (&sum)[VALUES],
                                       unsigned points, int lane) {
    if (points == 0) return;
#pragma unroll
    for (int k = 0; k < VALUES; ++k) {
        const int t = lane + 32 * k;
        if (t < a.d) atomicAdd(rows + size_t(landmark) * (32 * VALUES) + t, sum[k]);
    }
    if (lane == 0) atomicAdd(counts + landmark, points);
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
template <int VALUES>
__device__ void addBatch(const LandmarkSumArgs& a, float* rows, unsigned* counts, unsigned* bins,
                         uint32_t* entries, unsigned* warpTotals, size_t begin, size_t end,
                         double& inertia, unsigned long long& skipped) {
    constexpr int kStride = 32 * VALUES;
    constexpr int kRowsInFlight =
        VALUES == 1 ? 6 : 8 / VALUES;  // rows a warp loads before adding them
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int count = int(end - begin);
    for (int j = tid; j < a.g; j += kSortThreads) bins[j] = 0;
    __syncthreads();
    // 1. A rank in the landmark's bin for each point.
    uint32_t key[kPerThread];
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const int i = u * kSortThreads + tid;
        key[u] = kNoEntry;
        if (i >= count) continue;
        const uint32_t b = a.assign[begin + i];
        if (b >= uint32_t(a.g)) {
            a.assign[begin + i] = kSkippedPoint;
            ++skipped;
            continue;
        }
        key[u] = (b << kPointBits) | atomicAdd(bins + b, 1u);
    }
    __syncthreads();
    // 2. Offsets, and each entry at its landmark's offset plus its rank.
    const unsigned total = scanBins(bins, a.g, warpTotals);
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        if (key[u] == kNoEntry) continue;
        const uint32_t b = key[u] >> kPointBits, rank = key[u] & ((1u << kPointBits) - 1u);
        entries[bins[b] + rank] = (b << kPointBits) | uint32_t(u * kSortThreads + tid);
    }
    __syncthreads();
    // 3. Each warp's share of the sorted entries, one landmark's run at a time.
    const unsigned from = unsigned(uint64_t(total) * warp / kSortWarps);
    const unsigned to = unsigned(uint64_t(total) * (warp + 1) / kSortWarps);
    float sum[VALUES] = {};
    unsigned points = 0;
    uint32_t landmark = kNoEntry;
    for (unsigned e0 = from; e0 < to; e0 += kRowsInFlight) {
        uint32_t entry[kRowsInFlight];
        float v[kRowsInFlight][VALUES];
        float dist[kRowsInFlight];
        // Every row's loads first: several rows in flight.
#pragma unroll
        for (int r = 0; r < kRowsInFlight; ++r) {
            entry[r] = e0 + r < to ? entries[e0 + r] : kNoEntry;
            const size_t p = begin + (entry[r] & ((1u << kPointBits) - 1u));
            const bool valid = entry[r] != kNoEntry;
#pragma unroll
            for (int k = 0; k < VALUES; ++k)
                v[r][k] = valid ? a.points[p * kStride + lane + 32 * k] : 0.0f;
            dist[r] = valid && lane == 0 ? a.dist[p] : 0.0f;
        }
#pragma unroll
        for (int r = 0; r < kRowsInFlight; ++r) {
            if (entry[r] == kNoEntry) break;
            bool finite = true;
#pragma unroll
            for (int k = 0; k < VALUES; ++k) finite = finite && isfinite(v[r][k]);
            if (!__all_sync(0xffffffffu, finite)) {
                if (lane == 0) {
                    a.assign[begin + (entry[r] & ((1u << kPointBits) - 1u))] = kSkippedPoint;
                    ++skipped;
                }
                continue;
            }
            const uint32_t b = entry[r] >> kPointBits;
            if (b != landmark) {
                addRun<VALUES>(a, rows, counts, landmark, sum, points, lane);
                landmark = b;
                points = 0;
#pragma unroll
                for (int k = 0; k < VALUES; ++k) sum[k] = 0.0f;
            }
#pragma unroll
            for (int k = 0; k < VALUES; ++k) sum[k] += v[r][k];
            ++points;
            if (lane == 0) inertia += double(dist[r]);
        }
    }
    addRun<VALUES>(a, rows, counts, landmark, sum, points, lane);
    __syncthreads();  // the entries and bins are the next batch's
}

template <int VALUES>
__global__ void __launch_bounds__(kSortThreads)
    sortedSumsKernel(const LandmarkSumArgs a, size_t span) {
    constexpr int kStride = 32 * VALUES;
    extern __shared__ float shared[];
    __shared__ unsigned warpTotals[kSortWarps + 1];
    float* rows = shared;  // g x stride
    unsigned* counts = reinterpret_cast<unsigned*>(shared + size_t(a.g) * kStride);
    unsigned* bins = counts + a.g;
    uint32_t* entries = bins + a.g;
    double inertia = 0;
    unsigned long long skipped = 0;
    const size_t spans = (a.n + span - 1) / span;
    for (size_t s = blockIdx.x; s < spans; s += gridDim.x) {
        const size_t begin = s * span, end = a.n - begin < span ? a.n : begin + span;
        for (size_t e = threadIdx.x; e < size_t(a.g) * (kStride + 1); e += kSortThreads)
            shared[e] = 0.0f;
        __syncthreads();
        for (size_t b0 = begin; b0 < end; b0 += kBatch)
            addBatch<VALUES>(a, rows, counts, bins, entries, warpTotals, b0,
                             end - b0 < size_t(kBatch) ? end : b0 + kBatch, inertia, skipped);
        // The next span clears the shared sums only after every thread has read them.
        detail::flushBlockSums(a, rows, kStride, counts);
        __syncthreads();
    }
    detail::addBlockTotals(a, inertia, skipped);
}

/// Shared memory of the sorted sums: g x (stride + 2) words (sums, counts, bins) and the entries.
size_t sortedSumsBytes(int g, int stride) {
    return size_t(g) * size_t(stride + 2) * sizeof(float) + size_t(kBatch) * sizeof(uint32_t);
}

template <int VALUES>
void launchSorted(const LandmarkSumArgs& a, cudaStream_t stream) {
    const size_t bytes = sortedSumsBytes(a.g, a.stride);
    constexpr auto kernel = sortedSumsKernel<VALUES>;
    detail::allowSharedBytes<kernel>(bytes);
    int perSm = 0;
    SEPAL_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kSortThreads, bytes));
    const size_t slots = size_t(perSm > 0 ? perSm : 1) * size_t(detail::multiprocessorCount());
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
    // The block's static shared memory (the scan's warp totals) counts against the same limit.
    constexpr size_t kStaticBytes = (kSortWarps + 1) * sizeof(unsigned);
    return (stride == 32 || stride == 64 || stride == 128) && g > 0 && g < (1 << 18) &&
           sortedSumsBytes(g, stride) + kStaticBytes <= detail::maxSharedBytesOptin();
}

void launchSortedLandmarkSums(const LandmarkSumArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    if (a.stride == 32)
        launchSorted<1>(a, stream);
    else if (a.stride == 64)
        launchSorted<2>(a, stream);
    else
        launchSorted<4>(a, stream);
}

}  // namespace sepal::cuda
