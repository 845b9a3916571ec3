// The device half of the wide ranks (wide_ranks.h). A block of 8 warps takes 128 cells (its
// slots) against every reference, a tile of 128 at a time; warp (wm, wn) holds the products of
// cells 64 wm .. 64 wm + 63 with references 32 wn .. 32 wn + 31 of the tile: 4 x 4 m16n8 tiles,
// 64 products a lane, in two sets of registers (the running sums, and the sums of the current 32
// columns). Stages of 32 columns of both sets of rows (their FP16 high and low parts) arrive by
// cp.async, STAGES - 1 ahead of the stage the warps multiply. After a tile's last stage each
// product is compared with its cell's target intervals (in shared memory): below an interval it
// counts as nearer; inside one it is listed for its exact key.

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cuda/cuda_error.h"
#include "cuda/cuda_event.h"
#include "cuda/device_buffer.h"
#include "cuda/knn_device.cuh"
#include "cuda/point_kernel_launch.cuh"
#include "cuda/rank_slots.cuh"
#include "cuda/split_mma.cuh"
#include "cuda/tile_keys.cuh"
#include "cuda/wide_ranks.h"

namespace sepal::cuda {
namespace {

constexpr int kWideTile = 128;           // cells of a block, references of a tile
constexpr int kChunk = kWideSumColumns;  // columns of a stage
constexpr int kWords = kChunk;           // 32-bit words of a row's stage: 16 of high parts, 16 low
/// Words of a row in shared memory: 144 bytes, so that the eight rows an ldmatrix phase reads
/// fall in distinct banks.
constexpr int kPitchWords = kWords + 4;
constexpr int kThreads = 256;    // 8 warps: 2 of cells by 4 of references
constexpr int kListBlock = 256;  // listed products a block gathers before writing them out

/// A product inside one of its cell's intervals: its value, reference and slot (of the launch).
struct ListedProduct {
    float x;
    uint32_t ref;
    uint32_t slot;
};

/// Where the kernel lists products for their exact keys.
struct ProductList {
    ListedProduct* entries;
    unsigned long long* count;  ///< products offered (may pass the capacity)
    unsigned long long capacity;
};

/// The rows as the kernel reads them.
struct WideRows {
    const uint32_t* words;  ///< (chunk x nPad + row) x kWords: FP16 pairs, high then low
    const float* norm2;     ///< nPad squared norms (infinity past the rows)
    int nPad;               ///< rows rounded up to whole tiles
    int chunks;             ///< stages of kChunk columns a row
    float scale;            ///< the power of two of the FP16 parts
};

/// Shared memory of a block: the stages, the targets' intervals and counts, the cells, the list.
template <int T>
struct WideLayout {
    static constexpr size_t kStageBytes = 2 * kWideTile * kPitchWords * sizeof(uint32_t);
    static constexpr size_t kTargetBytes = kWideTile * T * 3 * sizeof(float) + kWideTile * 4;
    static constexpr size_t kListBytes = kListBlock * sizeof(ListedProduct) + 16;
    static constexpr size_t bytes(int stages) {
        return size_t(stages) * kStageBytes + kTargetBytes + kListBytes;
    }
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
/// Loads four 8 x 8 matrices of 16-bit values from shared memory, as mma fragments.
__device__ __forceinline__ void loadMatrices(uint32_t (&r)[4], const uint32_t* at) {
    const uint32_t address = uint32_t(__cvta_generic_to_shared(at));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

/// mma.sync m16n8k16 with FP16 operands and single-precision sums, as detail::mmaF16 but not
/// volatile: the compiler may interleave independent products.
__device__ __forceinline__ void mmaHalves(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

/// Counts reference `ref` for every target of `slot` whose interval holds x and whose exact key
/// it beats (in the CPU's order: key, then index).
template <int T>
__device__ __noinline__ void takeExactly(float x, uint32_t ref, int slot, const RankSlots& slots,
                                         const float* __restrict__ original, int d,
                                         uint32_t* __restrict__ counts) {
    const uint32_t cell = slots.cells[slot];
    const size_t base = size_t(slot) * T;
    bool have = false;
    double exact = 0.0;
    for (int t = 0; t < T; ++t) {
        if (!(x >= slots.below[base + t] && x <= slots.above[base + t])) continue;
        if (!have)
            exact = exactKey<Sum::Squares>(original + size_t(cell) * d, original + size_t(ref) * d,
                                           d, 0.0, 1.0, 0.0, 1.0);
        have = true;
        const double key = slots.key[base + t];
        if (exact < key || (exact == key && ref < slots.id[base + t]))
            atomicAdd(&counts[base + t], 1u);
    }
}

/// Lists a product in the global list; past its capacity, takes its exact key at once. Not
/// inlined: the rare paths inlined into the comparisons would crowd the instruction cache that
/// the products' loop runs from.
template <int T>
__device__ __noinline__ void listGlobally(const ListedProduct& p, const ProductList& list,
                                          const RankSlots& slots,
                                          const float* __restrict__ original, int d,
                                          uint32_t* __restrict__ counts) {
    const unsigned long long at = atomicAdd(list.count, 1ull);
    if (at < list.capacity)
        list.entries[at] = p;
    else
        takeExactly<T>(p.x, p.ref, int(p.slot), slots, original, d, counts);
}

/// Adds to counts[s T + t] the references nearer than target t of slot s (see wide_ranks.h).
template <int T, int STAGES>
__global__ void __launch_bounds__(kThreads, 1)
    wideRankKernel(WideRows rows, const float* __restrict__ original, int d, RankSlots slots,
                   uint32_t* __restrict__ counts, ProductList list) {
#if __CUDA_ARCH__ >= 800
    constexpr int kStageWords = 2 * kWideTile * kPitchWords;
    extern __shared__ float4 shared[];
    uint32_t* stages = reinterpret_cast<uint32_t*>(shared);
    float* sBelow = reinterpret_cast<float*>(stages + STAGES * kStageWords);
    float* sAbove = sBelow + kWideTile * T;
    uint32_t* sCount = reinterpret_cast<uint32_t*>(sAbove + kWideTile * T);
    uint32_t* sCell = sCount + kWideTile * T;
    ListedProduct* sList = reinterpret_cast<ListedProduct*>(sCell + kWideTile);
    unsigned* sListCount = reinterpret_cast<unsigned*>(sList + kListBlock);
    unsigned long long* sListBase = reinterpret_cast<unsigned long long*>(sListCount + 2);

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, gq = lane >> 2, t4 = lane & 3;
    const int wm = warp >> 2, wn = warp & 3;
    const int first = blockIdx.x * kWideTile;  // the block's first slot
    constexpr uint32_t kNoCell = 0xffffffffu;  // an absent slot's cell

    // The block's targets; absent slots' intervals lie at minus infinity (nothing reaches them).
    for (int e = tid; e < kWideTile * T; e += kThreads) {
        const bool live = first + e / T < slots.count;
        sBelow[e] = live ? slots.below[size_t(first) * T + e] : -INFINITY;
        sAbove[e] = live ? slots.above[size_t(first) * T + e] : -INFINITY;
        sCount[e] = 0;
    }
    for (int r = tid; r < kWideTile; r += kThreads)
        sCell[r] = first + r < slots.count ? slots.cells[first + r] : kNoCell;
    if (tid == 0) *sListCount = 0;
    __syncthreads();

    // This thread's copies: 16 bytes (segment tid % 8) of rows tid / 8 + 32 i of both sets.
    const int segment = tid & 7;
    uint32_t aCell[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t c = sCell[(tid >> 3) + 32 * i];
        aCell[i] = c == kNoCell ? 0 : c;
    }
    const int items = (rows.nPad / kWideTile) * rows.chunks;  // (tile, chunk) stages
    const auto issue = [&](int item) {
        if (item < items) {
            const int tile = item / rows.chunks, chunk = item % rows.chunks;
            uint32_t* a = stages + (item % STAGES) * kStageWords;
            uint32_t* b = a + kWideTile * kPitchWords;
            const uint32_t* from = rows.words + size_t(chunk) * size_t(rows.nPad) * kWords;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int row = (tid >> 3) + 32 * i;
                copy16(a + row * kPitchWords + 4 * segment,
                       from + size_t(aCell[i]) * kWords + 4 * segment);
                copy16(b + row * kPitchWords + 4 * segment,
                       from + size_t(tile * kWideTile + row) * kWords + 4 * segment);
            }
        }
        commitCopies();  // an empty group past the end keeps the count of groups in step
    };

    const float minusTwoOverScale2 = -2.0f / (rows.scale * rows.scale);
    float run[4][4][4], part[4][4][4];
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e) run[mi][ni][e] = part[mi][ni][e] = 0.0f;

    // A product inside an interval: to the block's list, or the global one when that is full.
    const auto listProduct = [&](float x, uint32_t ref, int row) {
        const ListedProduct p{x, ref, uint32_t(first + row)};
        const unsigned at = atomicAdd(sListCount, 1u);
        if (at < kListBlock)
            sList[at] = p;
        else
            listGlobally<T>(p, list, slots, original, d, counts);
    };

    // After a tile's last stage: its products against the targets.
    const auto compare = [&](int tile) {
        const int r0 = tile * kWideTile + wn * 32;
        float2 norms[4];
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
            norms[ni] = *reinterpret_cast<const float2*>(rows.norm2 + r0 + ni * 8 + 2 * t4);
        }
        // A loop over the lane's 8 cells, not 8 copies: the comparisons run once a tile, and
        // copies of them would crowd the instruction cache that the products' loop runs from.
#pragma unroll 1
        for (int cellRow = 0; cellRow < 8; ++cellRow) {
            const int mi = cellRow >> 1, h = cellRow & 1;
            const int row = wm * 64 + mi * 16 + gq + 8 * h;
            const uint32_t cell = sCell[row];
            const float reach = sAbove[row * T + T - 1];
            // This cell's 8 sums, picked from the registers by selects.
            float sums[8];
#pragma unroll
            for (int j = 0; j < 8; ++j) sums[j] = run[0][j >> 1][j & 1];
#pragma unroll
            for (int other = 1; other < 8; ++other)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    sums[j] = cellRow == other ? run[other >> 1][j >> 1][2 * (other & 1) + (j & 1)]
                                               : sums[j];
            float x[8];
            bool any = false;
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    const uint32_t ref = uint32_t(r0 + ni * 8 + 2 * t4 + c);
                    const float v =
                        fmaf(minusTwoOverScale2, sums[2 * ni + c], c ? norms[ni].y : norms[ni].x);
                    // A cell's own product is nobody's nearer cell.
                    x[2 * ni + c] = ref == cell ? INFINITY : v;
                    any |= x[2 * ni + c] <= reach;
                }
            if (!any) continue;
            float below[T], above[T];
            uint32_t nearer[T];
#pragma unroll
            for (int t = 0; t < T; ++t) {
                below[t] = sBelow[row * T + t];
                above[t] = sAbove[row * T + t];
                nearer[t] = 0;
            }
#pragma unroll 1
            for (int p = 0; p < 8; ++p) {
                float xp = x[0];
#pragma unroll
                for (int q = 1; q < 8; ++q) xp = p == q ? x[q] : xp;
                if (!(xp <= reach)) continue;
                // Nearer than every target whose interval starts above it; inside the last
                // interval that starts at or below it (the intervals ascend, so no other
                // holds it otherwise): listed.
                float last = -INFINITY;
#pragma unroll
                for (int t = 0; t < T; ++t) {
                    nearer[t] += xp < below[t];
                    last = xp >= below[t] ? above[t] : last;
                }
                if (xp <= last)
                    listProduct(xp, uint32_t(r0 + (p >> 1) * 8 + 2 * t4 + (p & 1)), row);
            }
#pragma unroll
            for (int t = 0; t < T; ++t)
                if (nearer[t]) atomicAdd(&sCount[row * T + t], nearer[t]);
        }
        // The block's listed products go to the global list in one reservation.
        __syncthreads();
        const unsigned held = min(*sListCount, unsigned(kListBlock));
        if (held > 0) {
            if (tid == 0) *sListBase = atomicAdd(list.count, (unsigned long long)held);
            __syncthreads();
            const unsigned long long base = *sListBase;
            for (unsigned e = tid; e < held; e += kThreads) {
                if (base + e < list.capacity)
                    list.entries[base + e] = sList[e];
                else
                    takeExactly<T>(sList[e].x, sList[e].ref, int(sList[e].slot), slots, original, d,
                                   counts);
            }
        }
        __syncthreads();
        if (tid == 0) *sListCount = 0;
    };

#pragma unroll 1
    for (int s = 0; s < STAGES - 1; ++s) issue(s);
#pragma unroll 1
    for (int item = 0; item < items; ++item) {
        waitCopiesBut<STAGES - 2>();
        __syncthreads();  // the stage landed for every thread; the one refilled next is free
        issue(item + STAGES - 1);
        const uint32_t* a = stages + (item % STAGES) * kStageWords;
        const uint32_t* b = a + kWideTile * kPitchWords;
#pragma unroll
        for (int ks = 0; ks < kChunk / 16; ++ks) {
            // B: pair p holds n-tiles 2p and 2p + 1, each as (k 0-7, k 8-15).
            uint32_t bHi[2][4], bLo[2][4];
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                const uint32_t* at =
                    b + (wn * 32 + p * 16 + (lane >> 4) * 8 + (lane & 7)) * kPitchWords + ks * 8 +
                    ((lane >> 3) & 1) * 4;
                loadMatrices(bHi[p], at);
                loadMatrices(bLo[p], at + kWords / 2);
            }
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                uint32_t aHi[4], aLo[4];
                const uint32_t* at =
                    a + (wm * 64 + mi * 16 + (lane & 15)) * kPitchWords + ks * 8 + (lane >> 4) * 4;
                loadMatrices(aHi, at);
                loadMatrices(aLo, at + kWords / 2);
                // The small terms first, as splitMma sums them; the four n-tiles' products
                // one after another, so that no product waits for the one before it.
#pragma unroll
                for (int ni = 0; ni < 4; ++ni)
                    mmaHalves(part[mi][ni], aLo, bHi[ni >> 1][(ni & 1) * 2],
                              bHi[ni >> 1][(ni & 1) * 2 + 1]);
#pragma unroll
                for (int ni = 0; ni < 4; ++ni)
                    mmaHalves(part[mi][ni], aHi, bLo[ni >> 1][(ni & 1) * 2],
                              bLo[ni >> 1][(ni & 1) * 2 + 1]);
#pragma unroll
                for (int ni = 0; ni < 4; ++ni)
                    mmaHalves(part[mi][ni], aHi, bHi[ni >> 1][(ni & 1) * 2],
                              bHi[ni >> 1][(ni & 1) * 2 + 1]);
            }
        }
        // The stage's sums join the running sums (the error bound's partial sums).
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    run[mi][ni][e] += part[mi][ni][e];
                    part[mi][ni][e] = 0.0f;
                }
        if (item % rows.chunks == rows.chunks - 1) {
            compare(item / rows.chunks);
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                    for (int e = 0; e < 4; ++e) run[mi][ni][e] = 0.0f;
        }
    }
    waitCopiesBut<0>();
    __syncthreads();
    for (int e = tid; e < kWideTile * T; e += kThreads)
        if (first + e / T < slots.count && sCount[e])
            atomicAdd(&counts[size_t(first) * T + e], sCount[e]);
#endif
}

constexpr int kListedWarps = 4;  // warps of a block of the listed products' kernel
/// Blocks of it a multiprocessor should hold (at most 64 registers a thread; its shared memory
/// lets 6 in): its warps wait on the rows' reads, and more of them hide more of the wait.
constexpr int kListedBlocks = 8;

/// The listed products' exact keys, 32 a warp: column by column in the CPU's order, each lane
/// sums its own product's key, while the warp reads the 32 pairs of rows 32 columns at a time
/// through shared memory (a row's 32 columns are one read; a lane reading its rows alone would
/// touch 32 lines an instruction). Then as takeExactly.
template <int T>
__global__ void __launch_bounds__(kListedWarps * 32, kListedBlocks)
    listedKeysKernel(const ListedProduct* __restrict__ entries,
                     const unsigned long long* __restrict__ offered, unsigned long long capacity,
                     RankSlots slots, const float* __restrict__ original, int d,
                     uint32_t* __restrict__ counts) {
    __shared__ float cells[kListedWarps][32][33], refs[kListedWarps][32][33];
    // The products' kernel's count, read here: the host need not wait for it to issue this one.
    const unsigned long long count = min(*offered, capacity);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const unsigned long long warps = (unsigned long long)gridDim.x * kListedWarps;
    for (unsigned long long w = blockIdx.x * kListedWarps + warp; w * 32 < count; w += warps) {
        const unsigned long long mine = w * 32 + lane;
        const bool live = mine < count;
        const ListedProduct p = entries[live ? mine : w * 32];
        const uint32_t cell = slots.cells[p.slot];
        double exact = 0.0;
        for (int c0 = 0; c0 < d; c0 += 32) {
            const int c = c0 + lane;
#pragma unroll 8
            for (int j = 0; j < 32; ++j) {
                const uint32_t jCell = __shfl_sync(0xffffffffu, cell, j);
                const uint32_t jRef = __shfl_sync(0xffffffffu, p.ref, j);
                cells[warp][j][lane] = c < d ? original[size_t(jCell) * d + c] : 0.0f;
                refs[warp][j][lane] = c < d ? original[size_t(jRef) * d + c] : 0.0f;
            }
            __syncwarp();
            const int columns = min(32, d - c0);
            for (int l = 0; l < columns; ++l) {
                const double t =
                    __dsub_rn(double(cells[warp][lane][l]), double(refs[warp][lane][l]));
                exact = __dadd_rn(exact, __dmul_rn(t, t));
            }
            __syncwarp();
        }
        if (!live) continue;
        const size_t base = size_t(p.slot) * T;
        for (int t = 0; t < T; ++t) {
            if (!(p.x >= slots.below[base + t] && p.x <= slots.above[base + t])) continue;
            const double key = slots.key[base + t];
            if (exact < key || (exact == key && p.ref < slots.id[base + t]))
                atomicAdd(&counts[base + t], 1u);
        }
    }
}

/// The centred rows (rows x stride, scaled) as FP16 high and low parts, stage by stage; rows
/// past `n` up to nPad are zeros.
__global__ void splitWideRowsKernel(const float* __restrict__ rows, int n, int stride, float scale,
                                    int nPad, uint32_t* __restrict__ words) {
#if __CUDA_ARCH__ >= 800
    const size_t e = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const int pairs = stride / 2;
    if (e >= size_t(nPad) * size_t(pairs)) return;
    const int row = int(e / size_t(pairs)), col = 2 * int(e % size_t(pairs));
    const float x0 = row < n ? rows[size_t(row) * stride + col] * scale : 0.0f;
    const float x1 = row < n ? rows[size_t(row) * stride + col + 1] * scale : 0.0f;
    uint32_t hi = 0, lo = 0;
    splitHalf2(x0, x1, hi, lo);
    uint32_t* at = words + (size_t(col / kChunk) * size_t(nPad) + size_t(row)) * kWords;
    at[(col % kChunk) / 2] = hi;
    at[kWords / 2 + (col % kChunk) / 2] = lo;
#endif
}

/// A launch of the wide kernel.
using WideLaunch = void (*)(const WideRows&, const float*, int, const RankSlots&, uint32_t*,
                            const ProductList&);

template <int T, int STAGES>
void launchWide(const WideRows& rows, const float* original, int d, const RankSlots& slots,
                uint32_t* counts, const ProductList& list) {
    constexpr auto kernel = wideRankKernel<T, STAGES>;
    const size_t bytes = WideLayout<T>::bytes(STAGES);
    detail::allowSharedBytes<kernel>(bytes);
    const int blocks = (slots.count + kWideTile - 1) / kWideTile;
    kernel<<<blocks, kThreads, bytes>>>(rows, original, d, slots, counts, list);
    SEPAL_CUDA_CHECK_LAUNCH("wideRankKernel");
}

/// The kernel for T target places, with as many stages as the device's shared memory holds (3,
/// else 2); null when not even 2 fit.
template <int T>
WideLaunch wideLaunchFor() {
    const size_t shared = currentDeviceLimits().sharedBytes;
    if (shared >= WideLayout<T>::bytes(3)) return launchWide<T, 3>;
    if (shared >= WideLayout<T>::bytes(2)) return launchWide<T, 2>;
    return nullptr;
}

/// The kernel for `width` target places (8, 10 or 16; null for others).
WideLaunch wideLaunch(int width) {
    return width == 8    ? wideLaunchFor<8>()
           : width == 10 ? wideLaunchFor<10>()
           : width == 16 ? wideLaunchFor<16>()
                         : nullptr;
}

/// The listed products' kernel for T places: as many blocks as the device holds at
/// once, each taking warps of 32 products in turn.
template <int T>
void launchListedFor(const ListedProduct* entries, const unsigned long long* offered,
                     unsigned long long capacity, const RankSlots& slots, const float* original,
                     int d, uint32_t* counts) {
    constexpr auto kernel = listedKeysKernel<T>;
    static const int perMultiprocessor = [] {
        int blocks = 0;
        SEPAL_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kListedWarps * 32, 0));
        return std::max(blocks, 1);
    }();
    const int blocks = perMultiprocessor * detail::multiprocessorCount();
    kernel<<<blocks, kListedWarps * 32>>>(entries, offered, capacity, slots, original, d, counts);
    SEPAL_CUDA_CHECK_LAUNCH("listedKeysKernel");
}

/// launchListedFor for `width` places (8, 10 or 16).
void launchListed(int width, const ListedProduct* entries, const unsigned long long* offered,
                  unsigned long long capacity, const RankSlots& slots, const float* original, int d,
                  uint32_t* counts) {
    if (width == 8)
        launchListedFor<8>(entries, offered, capacity, slots, original, d, counts);
    else if (width == 10)
        launchListedFor<10>(entries, offered, capacity, slots, original, d, counts);
    else
        launchListedFor<16>(entries, offered, capacity, slots, original, d, counts);
}

}  // namespace

bool wideRanksTake(size_t n, size_t d, int width) {
    const DeviceLimits& limits = currentDeviceLimits();
    if (d <= 64 || d > size_t(1) << 20 || n > size_t(INT32_MAX) - kWideTile || limits.major < 8 ||
        !wideLaunch(width))
        return false;
    // While the rows are split, the device holds them twice more (centred floats and FP16
    // parts), besides the original rows; then the list (at least 2^16 products) and room.
    const size_t stride = (d + kChunk - 1) / kChunk * kChunk;
    const size_t nPad = (n + kWideTile - 1) / kWideTile * kWideTile;
    const size_t needed = 2 * nPad * stride * sizeof(float) +
                          (size_t(1) << 16) * sizeof(ListedProduct) + (size_t(256) << 20);
    size_t freeBytes = 0, totalBytes = 0;
    SEPAL_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    return freeBytes >= needed;
}

std::vector<uint32_t> wideRankCounts(const SplitKnnInput& in, const float* original, int d,
                                     const RankTargets& targets, const WideRankLimits& limits,
                                     WideRankStats* stats) {
    const size_t slots = targets.cells.size();
    if (slots == 0) return {};
    const WideLaunch launch = wideLaunch(targets.width);
    // The intervals' bounds hold only for the kernel's partial sums.
    if (!launch || in.sumColumns != kWideSumColumns || in.stride % kChunk != 0)
        throw std::logic_error("wideRankCounts: the device or the rows do not suit the kernel");
    const DeviceRankTargets device(targets);

    // The rows as FP16 pairs, stage by stage, and their norms (infinity past the rows).
    const size_t nPad = (in.n + kWideTile - 1) / kWideTile * kWideTile;
    const int chunks = in.stride / kChunk;
    DeviceBuffer<uint32_t> words;
    words.reserve(size_t(chunks) * nPad * kWords);
    {
        DeviceBuffer<float> centred;
        uploadVector(centred, in.rows);
        const size_t threads = nPad * size_t(in.stride / 2);
        splitWideRowsKernel<<<unsigned((threads + 255) / 256), 256>>>(
            centred.get(), int(in.n), in.stride, in.scale, int(nPad), words.get());
        SEPAL_CUDA_CHECK_LAUNCH("splitWideRowsKernel");
        SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<float> norm2(nPad, std::numeric_limits<float>::infinity());
    std::copy(in.norm2.begin(), in.norm2.end(), norm2.begin());
    DeviceBuffer<float> norms;
    uploadVector(norms, norm2);
    const WideRows rows{words.get(), norms.get(), int(nPad), chunks, in.scale};

    // Launches of four blocks a multiprocessor: whole waves. Each block scans every reference,
    // so a launch grows with the rows (about 2 s for 10^6 x 1024 on an H100).
    const size_t batch = limits.batchSlots > 0
                             ? limits.batchSlots
                             : size_t(4) * size_t(detail::multiprocessorCount()) * kWideTile;
    const size_t launches = (slots + batch - 1) / batch;
    // The list: room for one product in 128 of a launch (a torn picture of a million cells of
    // 1024 columns lists one in 370), within a quarter of the free memory.
    size_t freeBytes = 0, totalBytes = 0;
    SEPAL_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    const size_t wanted = std::min(batch, slots) * (nPad / 128);
    const size_t capacity =
        limits.listCapacity > 0
            ? limits.listCapacity
            : std::max<size_t>(size_t(1) << 16,
                               std::min(wanted, freeBytes / 4 / sizeof(ListedProduct)));
    DeviceBuffer<ListedProduct> entries;
    entries.reserve(capacity);
    DeviceBuffer<unsigned long long> offered;  // each launch's products offered to the list
    offered.reserve(launches);
    SEPAL_CUDA_CHECK(cudaMemset(offered.get(), 0, launches * sizeof(unsigned long long)));

    // Issued all at once: each listed keys' kernel reads its count on the device, so the host
    // waits only at the end. (One launch's keys taken on a second stream while the next launch
    // makes its products, with two lists, did no better: beside a block of the products' kernel
    // a multiprocessor holds one block of 4 warps of the keys' kernel; GPU_NOTES.md.)
    std::vector<Event> productsStart(launches), productsEnd(launches), keysEnd(launches);
    for (size_t b = 0; b < launches; ++b) {
        const size_t s0 = b * batch, s1 = std::min(slots, s0 + batch);
        const ProductList list{entries.get(), offered.get() + b, capacity};
        productsStart[b].record();
        launch(rows, original, d, device.slots(s0, s1), device.counts(s0), list);
        productsEnd[b].record();
        launchListed(targets.width, list.entries, list.count, capacity, device.slots(s0, s1),
                     original, d, device.counts(s0));
        keysEnd[b].record();
    }
    SEPAL_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<unsigned long long> listed(launches);
    SEPAL_CUDA_CHECK(cudaMemcpy(listed.data(), offered.get(), launches * sizeof(listed[0]),
                                cudaMemcpyDeviceToHost));
    WideRankStats seen;
    for (size_t b = 0; b < launches; ++b) {
        seen.productSeconds += productsEnd[b].secondsSince(productsStart[b]);
        seen.listedSeconds += keysEnd[b].secondsSince(productsEnd[b]);
        seen.listed += listed[b];
        seen.pastCapacity += listed[b] > capacity ? listed[b] - capacity : 0;
    }
    if (stats) *stats = seen;
    return device.download();
}

}  // namespace sepal::cuda
