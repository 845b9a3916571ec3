// The device half of the trustworthiness ranks (split_ranks.h). A block of 4 warps takes 64
// cells; each warp holds its 16 cells' split A fragments in registers and streams every
// reference's B fragments through shared memory, as the k-NN graph's candidates do, in buffers
// of up to four of its 64-reference tiles (a barrier per buffer, not per tile: warps whose
// products need more work wait less for each other). Per 32 references a lane holds 8 products
// of each of its two cells; each is compared with the cell's targets' intervals in registers:
// below an interval it counts for that target, above it for none. A warp whose products all lie
// above every interval moves on after one comparison each. A product inside an interval needs
// its exact key: the warp queues such products and takes 32 at a time, a lane each, so that
// their reads of two rows from global memory overlap instead of holding up the warp one by one.
// With parts (rank_parts.h) the block copies only the tiles of the parts some warp of it scans,
// and a warp compares only those of the parts it scans itself.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/common/float_rounding.h"
#include "cuda/cuda_error.h"
#include "cuda/knn_device.cuh"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/rank_parts.h"
#include "cuda/rank_slots.cuh"
#include "cuda/split_mma.cuh"
#include "cuda/split_ranks.h"
#include "cuda/tile_keys.cuh"

namespace sepal::cuda {
namespace {

constexpr int kRankWarps = 4;                    // warps of a block
constexpr int kRankRows = kRankWarpCells;        // cells of a warp: one m16 tile
constexpr int kRankQueue = 64;                   // products a warp queues for their exact keys
constexpr size_t kBatchSlots = size_t(1) << 16;  // cells per launch
/// The share of the pairs past which a scan by parts is slower than one over every tile (the
/// decisions, and a pipeline restarted at every part): a torn picture's 98 % took 3 % longer.
constexpr double kPartsPayBelow = 0.85;

/// A product queued for its exact key: its float value, reference and row of the warp.
struct QueuedProduct {
    float x;
    uint32_t ref;
    uint32_t row;
};

/// Shared memory of a block: two reference buffers (fragments and norms) of `tiles` tiles each,
/// and each warp's queue.
template <int KS>
struct RankLayout {
    static constexpr int kTileFragments = kSplitRefTile / 8 * KS * 32;  // float4 per tile
    /// Tiles a buffer holds: about 32 KB of fragments for both buffers.
    static constexpr int kTilesPerBuffer = KS >= 4 ? 1 : 4 / KS;
    static constexpr int kBufferFragments = kTilesPerBuffer * kTileFragments;
    static constexpr int kBufferRefs = kTilesPerBuffer * kSplitRefTile;
    static constexpr size_t kFragmentBytes = 2 * kBufferFragments * sizeof(float4);
    static constexpr size_t kNormBytes = 2 * kBufferRefs * sizeof(float);
    static constexpr size_t kQueueBytes = kRankWarps * kRankQueue * sizeof(QueuedProduct);
    static constexpr size_t kBytes = kFragmentBytes + kNormBytes + kQueueBytes;
};

/// exactKey<Sum::Squares> of rows a and b of d <= 16 KS columns, in its order of operations,
/// with each 16 columns' loads issued together (the rows are rarely in a cache).
template <int KS>
__device__ double exactSquares(const float* __restrict__ a, const float* __restrict__ b, int d) {
    double s = 0.0;
#pragma unroll
    for (int c0 = 0; c0 < 16 * KS; c0 += 16) {
        float x[16], y[16];
#pragma unroll
        for (int c = 0; c < 16; ++c) {
            x[c] = c0 + c < d ? a[c0 + c] : 0.0f;
            y[c] = c0 + c < d ? b[c0 + c] : 0.0f;
        }
#pragma unroll
        for (int c = 0; c < 16; ++c)
            if (c0 + c < d) {
                const double t = __dsub_rn(double(x[c]), double(y[c]));
                s = __dadd_rn(s, __dmul_rn(t, t));
            }
    }
    return s;
}

/// Takes the `queued` products of a warp's queue, a lane each: for every target of the product's
/// cell whose interval holds it, its exact key decides, and a nearer reference is counted (it
/// was not among the nearer ones of the scan). Called by the whole warp.
template <int KS, int T>
__device__ __noinline__ void takeQueue(const QueuedProduct* queue, int queued, int warpFirst,
                                       const RankSlots& slots, const uint32_t* __restrict__ order,
                                       const float* __restrict__ original, int d,
                                       uint32_t* __restrict__ counts) {
    __syncwarp();
    for (int q = int(threadIdx.x & 31); q < queued; q += 32) {
        const QueuedProduct p = queue[q];
        const size_t base = size_t(warpFirst + int(p.row)) * T;
        // Positions in the parts' layout name their cells through its order.
        const uint32_t at = slots.cells[warpFirst + int(p.row)];
        const uint32_t cell = order ? order[at] : at, ref = order ? order[p.ref] : p.ref;
        bool have = false;
        double exact = 0.0;
        for (int t = 0; t < T; ++t) {
            if (!(p.x >= slots.below[base + t] && p.x <= slots.above[base + t])) continue;
            if (!have)
                exact =
                    exactSquares<KS>(original + size_t(cell) * d, original + size_t(ref) * d, d);
            have = true;
            const double key = slots.key[base + t];
            if (exact < key || (exact == key && ref < slots.id[base + t]))
                atomicAdd(&counts[base + t], 1u);
        }
    }
    __syncwarp();
}

/// Adds to counts[s T + t] the references nearer than target t of slot s (see split_ranks.h).
/// PARTS: only the parts `parts` lists for each warp; otherwise every tile (the loop over the
/// parts holds registers that the whole scan would spill).
template <int KS, int T, bool PARTS>
__global__ void __launch_bounds__(kRankWarps * 32, T <= 10 ? 4 : 2)
    splitRankKernel(SplitKnnDevice split, const float* __restrict__ original, int d,
                    RankSlots slots, RankPartsDevice parts, uint32_t* __restrict__ counts) {
#if __CUDA_ARCH__ >= 800
    using Layout = RankLayout<KS>;
    const float minusTwoOverScale2 = -2.0f / (split.scale * split.scale);
    extern __shared__ float4 shared[];
    float4* tiles = shared;
    float* tileNorm = reinterpret_cast<float*>(shared + 2 * Layout::kBufferFragments);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, gq = lane >> 2, t4 = lane & 3;
    QueuedProduct* queue =
        reinterpret_cast<QueuedProduct*>(tileNorm + 2 * Layout::kBufferRefs) + warp * kRankQueue;
    const int warpFirst = (blockIdx.x * kRankWarps + warp) * kRankRows;

    // This lane's two cells: slots warpFirst + gq and + 8 (a cell of -1: none).
    int cell[2];
    bool live[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int s = warpFirst + gq + 8 * r;
        live[r] = s < slots.count;
        cell[r] = live[r] ? int(slots.cells[s]) : -1;
    }
    // The warp's 16 cells as split A fragments: register j holds row gq (+ 8 for odd j),
    // columns 16 ks + 2 t4 and the next (+ 8 for j >= 2).
    uint32_t aHi[KS][4], aLo[KS][4];
#pragma unroll
    for (int ks = 0; ks < KS; ++ks)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int r = j & 1, col = 16 * ks + 2 * t4 + 8 * (j >> 1);
            const float* x = split.rows + size_t(live[r] ? cell[r] : 0) * split.stride;
            const float x0 = live[r] ? x[col] * split.scale : 0.0f;
            const float x1 = live[r] ? x[col + 1] * split.scale : 0.0f;
            splitHalf2(x0, x1, aHi[ks][j], aLo[ks][j]);
        }
    // The targets' intervals; unused places and absent cells lie at -infinity (every product
    // reaches them: they count none as nearer).
    float below[2][T], above[2][T], reach[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        reach[r] = -INFINITY;
        const size_t base = size_t(warpFirst + gq + 8 * r) * T;
#pragma unroll
        for (int t = 0; t < T; ++t) {
            below[r][t] = live[r] ? slots.below[base + t] : -INFINITY;
            above[r][t] = live[r] ? slots.above[base + t] : -INFINITY;
            reach[r] = fmaxf(reach[r], above[r][t]);
        }
    }
    // Per target, the products at or beyond its interval's start, of the `counted` (per cell)
    // that were compared: the rest are nearer.
    uint32_t reached[2][T], counted = 0;
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int t = 0; t < T; ++t) reached[r][t] = 0;
    int queued = 0;  // products in the warp's queue (the same in every lane)

    // 32 references from `first` on: their B fragments and norms.
    const auto scanPart = [&](const float4* partFragments, const float* partNorms, int first) {
        float v[4][4];
#pragma unroll
        for (int nt = 0; nt < 4; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) v[nt][e] = 0.0f;
#pragma unroll
        for (int ks = 0; ks < KS; ++ks)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
                // The candidates' products, in their order.
                splitMma(v[nt], aHi[ks], aLo[ks], partFragments[(nt * KS + ks) * 32 + lane]);
            }
        // v[nt][e]: cell r = e / 2, reference first + 8 nt + 2 t4 + e % 2. A cell's own
        // product goes to infinity: it is nobody's nearer cell.
        const int own0 = cell[0] - (first + 2 * t4), own1 = cell[1] - (first + 2 * t4);
        bool any = false;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
            const float2 nb = *reinterpret_cast<const float2*>(partNorms + 8 * nt + 2 * t4);
            v[nt][0] = own0 == 8 * nt ? INFINITY : fmaf(minusTwoOverScale2, v[nt][0], nb.x);
            v[nt][1] = own0 == 8 * nt + 1 ? INFINITY : fmaf(minusTwoOverScale2, v[nt][1], nb.y);
            v[nt][2] = own1 == 8 * nt ? INFINITY : fmaf(minusTwoOverScale2, v[nt][2], nb.x);
            v[nt][3] = own1 == 8 * nt + 1 ? INFINITY : fmaf(minusTwoOverScale2, v[nt][3], nb.y);
            any |= (v[nt][0] <= reach[0]) | (v[nt][1] <= reach[0]) | (v[nt][2] <= reach[1]) |
                   (v[nt][3] <= reach[1]);
        }
        if (!__any_sync(0xffffffffu, any)) return;
        // Per product: reached[t] counts it for every target whose interval starts at or below
        // it (the rest are nearer); it needs its exact key when it lies within the last interval
        // that starts at or below it (the intervals ascend, so no other can hold it then).
        uint32_t flagged = 0;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int r = e >> 1;
                const float x = v[nt][e];
                float last = -INFINITY;
#pragma unroll
                for (int t = 0; t < T; ++t) {
                    const bool at = x >= below[r][t];
                    reached[r][t] += at;
                    last = at ? above[r][t] : last;
                }
                flagged |= uint32_t(x <= last) << (4 * nt + e);
            }
        counted += 8;
        if (!__any_sync(0xffffffffu, flagged != 0)) return;
        // Rarely: the flagged products go to the warp's queue, at places after the lower lanes'.
        const int mine = __popc(flagged);
        int before = mine;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const int lower = __shfl_up_sync(0xffffffffu, before, o);
            if (lane >= o) before += lower;
        }
        const int total = __shfl_sync(0xffffffffu, before, 31);
        before -= mine;
        if (queued + total > kRankQueue) {
            takeQueue<KS, T>(queue, queued, warpFirst, slots, parts.order, original, d, counts);
            queued = 0;
        }
        // More than a queue at once (a crowd of ties): in rounds of a queue.
        for (int from = 0; from < total; from += kRankQueue) {
            int at = queued + before - from;
#pragma unroll
            for (int i = 0; i < 16; ++i)
                if ((flagged >> i) & 1u) {
                    if (at >= queued && at < queued + kRankQueue)
                        queue[at] = {v[i >> 2][i & 3],
                                     uint32_t(first + 8 * (i >> 2) + 2 * t4 + (i & 1)),
                                     uint32_t(gq + 8 * ((i & 3) >> 1))};
                    ++at;
                }
            const int added = min(kRankQueue, total - from);
            if (from + kRankQueue < total) {
                takeQueue<KS, T>(queue, queued + added, warpFirst, slots, parts.order, original, d,
                                 counts);
                queued = 0;
            } else {
                queued += added;
            }
        }
        if (queued >= 32) {
            takeQueue<KS, T>(queue, queued, warpFirst, slots, parts.order, original, d, counts);
            queued = 0;
        }
    };

    constexpr int kPartFragments = 4 * KS * 32;  // float4 per 32 references
    constexpr int kTiles = Layout::kTilesPerBuffer;
    // Tiles tile0 .. tile0 + count - 1 through the buffers; a warp that is not `scanning` only
    // helps copy them.
    const auto scanTiles = [&](int tile0, int count, bool scanning) {
        forEachReferenceTile(
            (count + kTiles - 1) / kTiles,
            [&](int i) {
                copyReferenceTiles(tiles, tileNorm, split.fragments, split.norm2,
                                   tile0 + i * kTiles, min(kTiles, count - i * kTiles), i & 1,
                                   Layout::kTileFragments, kTiles, kRankWarps * 32);
            },
            [&](int i, int buffer) {
                if (!scanning) return;
                const int halves = 2 * min(kTiles, count - i * kTiles);
#pragma unroll 1
                for (int h = 0; h < halves; ++h)
                    scanPart(tiles + buffer * Layout::kBufferFragments + h * kPartFragments,
                             tileNorm + buffer * Layout::kBufferRefs + 32 * h,
                             (tile0 + i * kTiles) * kSplitRefTile + 32 * h);
            });
    };
    if constexpr (!PARTS) {
        scanTiles(0, int(split.nPad / kSplitRefTile), true);
    } else {
        // The parts that some warp of the block scans (rank_parts.h), one after another.
        __shared__ uint32_t warpScans[kRankWarps][kRankPartWords];
        const int words = (parts.parts + 31) / 32;
        for (int e = threadIdx.x; e < kRankWarps * words; e += kRankWarps * 32) {
            const int w = e / words, word = e % words;
            const int blockWarp = blockIdx.x * kRankWarps + w;
            warpScans[w][word] = blockWarp * kRankRows < slots.count
                                     ? parts.scan[size_t(blockWarp) * kRankPartWords + word]
                                     : 0u;
        }
        __syncthreads();
        for (int word = 0; word < words; ++word) {
            uint32_t any = 0;
#pragma unroll
            for (int w = 0; w < kRankWarps; ++w) any |= warpScans[w][word];
            for (; any; any &= any - 1) {
                const int bit = __ffs(any) - 1, p = 32 * word + bit, tile0 = parts.partTiles[p];
                scanTiles(tile0, parts.partTiles[p + 1] - tile0,
                          (warpScans[warp][word] >> bit) & 1u);
            }
        }
    }
    // The products still queued, then a cell's count: the sum over its quad's four lanes.
    if (queued > 0)
        takeQueue<KS, T>(queue, queued, warpFirst, slots, parts.order, original, d, counts);
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int t = 0; t < T; ++t) {
            uint32_t c = counted - reached[r][t];
            c += __shfl_xor_sync(0xffffffffu, c, 1);
            c += __shfl_xor_sync(0xffffffffu, c, 2);
            if (t4 == 0 && live[r] && c)
                atomicAdd(&counts[size_t(warpFirst + gq + 8 * r) * T + t], c);
        }
#endif
}

/// The rank kernel for the k-steps and target places.
template <int KS, int T>
void launchRanks(const SplitKnnDevice& split, const float* original, int d, const RankSlots& slots,
                 const RankPartsDevice& parts, uint32_t* counts) {
    constexpr auto whole = splitRankKernel<KS, T, false>;
    constexpr auto byParts = splitRankKernel<KS, T, true>;
    const auto kernel = parts.parts > 0 ? byParts : whole;
    const size_t bytes = RankLayout<KS>::kBytes;
    detail::allowSharedBytes<whole>(bytes);
    detail::allowSharedBytes<byParts>(bytes);
    const int rowsPerBlock = kRankWarps * kRankRows;
    const int blocks = (slots.count + rowsPerBlock - 1) / rowsPerBlock;
    kernel<<<blocks, kRankWarps * 32, bytes>>>(split, original, d, slots, parts, counts);
    SEPAL_CUDA_CHECK_LAUNCH("splitRankKernel");
}

}  // namespace

int rankWidthFor(size_t k) {
    return k <= 8 ? 8 : k <= 10 ? 10 : k <= 16 ? 16 : 0;
}

RankTargets emptyRankTargets(size_t slots, int width) {
    RankTargets t;
    t.width = width;
    t.cells.assign(slots, 0);
    const size_t places = slots * size_t(width);
    t.key.assign(places, 0.0);
    t.id.assign(places, 0);
    t.below.assign(places, -std::numeric_limits<float>::infinity());
    t.above.assign(places, -std::numeric_limits<float>::infinity());
    return t;
}

void addRankTarget(const SplitKnnInput& in, uint32_t cell, double key, uint32_t id, size_t slot,
                   int place, RankTargets& targets) {
    // The exact key e of a product v: (v + own - error) ks (1 - rel) - abs <= e <=
    // (v + own + error) ks (1 + rel) + abs (split_knn.h); a little more room for this
    // arithmetic's own rounding.
    const double own = in.ownNorm2[cell], error = in.error[cell];
    const double room = 0x1p-48 * (std::fabs(key) + own + error);
    const double low = (key - in.absSlack) / ((1 + in.relSlack) * in.keyScale) - own - error - room;
    const double high =
        (key + in.absSlack) / ((1 - in.relSlack) * in.keyScale) - own + error + room;
    const size_t at = slot * size_t(targets.width) + size_t(place);
    targets.key[at] = key;
    targets.id[at] = id;
    targets.below[at] = floatDown(low);
    targets.above[at] = floatUp(high);
}

std::vector<uint32_t> splitRankCounts(const SplitKnnCandidates& split, const float* original, int d,
                                      const RankTargets& targets, const KnnPartLayout* layout,
                                      double* pairsCompared) {
    const size_t slots = targets.cells.size(), width = size_t(targets.width);
    if (slots == 0) return {};
    const DeviceRankTargets device(targets);
    std::unique_ptr<DeviceRankParts> parts;
    if (layout) parts = std::make_unique<DeviceRankParts>(*layout);
    const SplitKnnDevice rows = split.device();
    const auto launch = [&](const RankSlots& batch, const RankPartsDevice& scans,
                            uint32_t* counts) {
        withRankShape(rows.stride, int(width), "ranks", [&](auto ks, auto places) {
            launchRanks<decltype(ks)::value, decltype(places)::value>(rows, original, d, batch,
                                                                      scans, counts);
        });
    };
    // Batches of cells: no launch runs for long on a GPU that also draws.
    // Parts pay where the warps leave most of them out (a picture that keeps its
    // neighbourhoods); where far targets cut nearly every part (a torn picture), one pipeline
    // over every tile is faster. The first batch, with parts, decides for the others.
    bool useParts = parts != nullptr;
    double wholeScans = 0;  // pairs of the batches scanned whole
    for (size_t s0 = 0; s0 < slots; s0 += kBatchSlots) {
        const size_t s1 = std::min(slots, s0 + kBatchSlots);
        const RankSlots batch = device.slots(s0, s1);
        RankPartsDevice scans = parts ? parts->everyTile() : RankPartsDevice{};
        if (useParts) {
            scans = parts->decide(rows, batch, int(width), device.counts(s0));
            if (s0 == 0 && s1 < slots)
                useParts = double(parts->scannedPairs()) <
                           kPartsPayBelow * double(s1 - s0) * double(rows.nPad);
        } else {
            wholeScans += double(s1 - s0) * double(rows.nPad);
        }
        launch(batch, scans, device.counts(s0));
    }
    if (pairsCompared) {
        // Of the slots' pairs with every position, those whose products were compared.
        const double all = double(slots) * double(rows.nPad);
        *pairsCompared = parts ? (double(parts->scannedPairs()) + wholeScans) / all : 1.0;
    }
    return device.download();
}

}  // namespace sepal::cuda
