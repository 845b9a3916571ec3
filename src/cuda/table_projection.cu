// The table projection: EmbedSOM's second half from sorted neighbour lists (the resident k-NN's
// or any split k-NN's), with c_uv of every landmark pair in shared memory.
//
// Why: in the one-pass kernels each pair reads its (c_uv, w_uv) from a table in L2 at a random
// place, one 32-byte sector per pair, and those reads bound the projection (GPU_NOTES.md). Here
// the block holds c_uv of all g (g + 1) / 2 pairs in shared memory (g = 256: 129 KB), and w_uv
// is computed from the 2D positions with a fast reciprocal (pairWeight).
// Decomposition: one block per multiprocessor (16, 12, 8 or 4 warps, as many as shared memory
// allows: 16 at g = 256), persistent over tiles of 32 points.
// A warp loads its points' lists with coalesced loads through a per-warp scratch; each lane then
// holds its point's list in registers, and the pair loop is unrolled over the list (LIST <= 17),
// so that every index into the registers is a constant.
// Lists whose first distance is negative belong to points with NaN or infinity (marked by the
// k-NN, placed later by placeNonFinite): skipped here. With a list of rows (the neighbour
// cache's re-projection after a drag), a tile is 32 consecutive entries of it, each lane's list
// gathered from its own cell's place.
// Limits: topnn <= 17, g <= 362, the table must fit in shared memory (tableProjectionSharedBytes,
// kernel_limits.h).

#include <cfloat>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kMaxWarps = 16;

/// Shared-memory layout in floats: the c table, the 2D positions, the warps' list scratch.
struct TableLayout {
    size_t table = 0, low = 0, scratch = 0, perWarp = 0, total = 0;
    int pairs = 0, warps = 0;

    TableLayout(int g, int list, int warpCount) {
        warps = warpCount;
        table = 0;
        pairs = int(pairTableSize(size_t(g)));
        low = (size_t(pairs) + 3) / 4 * 4;
        scratch = low + size_t(g) * 2;
        perWarp = size_t(2) * 32 * list;  // distances (scores on the rare paths), indices
        total = scratch + size_t(warps) * perWarp;
    }
    size_t bytes() const { return total * 4; }
};

/// Warps per block for g landmarks: the most of 16, 12, 8, 4 whose layout fits (0: none does).
int warpsFor(int g, int list) {
    for (int w : {16, 12, 8, 4})
        if (TableLayout(g, list, w).bytes() <= detail::maxSharedBytesOptin()) return w;
    return 0;
}

/// 2^x by the hardware's approximation (relative error ~2^-22; subnormal results flush to 0,
/// where a pair's weight is negligible anyway).
__device__ __forceinline__ float fastExp2(float x) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/// log2 x by the hardware's approximation (absolute error ~2^-22; 0 gives -infinity).
__device__ __forceinline__ float fastLog2(float x) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/// 1 / x by the hardware's approximation (relative error ~2^-23).
__device__ __forceinline__ float fastReciprocal(float x) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

/// w_uv = (1 + hp)^-adjust / hp from the pair's squared 2D distance. ADJUST_ONE: adjust is 1
/// (the default), known at compile time, so the pair loop has no branch on it and w_uv costs
/// one reciprocal instruction; hp >= 1e-10 there (the table marks closer pairs), so neither
/// hp (1 + hp) nor its reciprocal leaves the normal range before hp passes 1e19.
template <bool ADJUST_ONE>
__device__ __forceinline__ float pairWeight(float hp, float adjust) {
    if (ADJUST_ONE) return fastReciprocal(fmaf(hp, hp, hp));
    if (adjust == 0.0f) return fastReciprocal(hp);
    return __powf(1.0f + hp, -adjust) * fastReciprocal(hp);
}

/// The pair's place in the table as a key that orders like the index u and holds the start of
/// u's row of the table: (u (u + 1) / 2) << 16 | u (the table fits in shared memory only for
/// g <= 362, where both halves fit in 16 bits).
__device__ __forceinline__ uint32_t pairKey(uint32_t u) {
    return (u * (u + 1) / 2) << 16 | u;
}

/// pairIndex of the two landmarks of keys ku and kv: the larger one's row, the smaller's column.
__device__ __forceinline__ uint32_t pairIndexOfKeys(uint32_t ku, uint32_t kv) {
    const uint32_t hi = ku > kv ? ku : kv, lo = ku > kv ? kv : ku;
    return (hi >> 16) + (lo & 0xffffu);
}

// FULL: topn = LIST - 1 and topnn = LIST (k = 8 or 16 with more landmarks than k), known at
// compile time, so that the unrolled loops carry no bound checks. ROWS: a.rows lists the cells
// (the neighbour cache's re-projection); a run-time test of it in the list loads cost a whole
// projection 7% (0.994 against 1.066 ms at the headline, one H100, scripts/gpu-ab.sh).
template <int LIST, bool ADJUST_ONE, bool FULL, bool ROWS>
__global__ void __launch_bounds__(32 * kMaxWarps, 1)
    tableProjectionKernel(const ProjectionArgs a, const TableLayout lay) {
    const int topn = FULL ? LIST - 1 : a.topn, topnn = FULL ? LIST : a.topnn;
    extern __shared__ float4 shared[];
    float* base = reinterpret_cast<float*>(shared);
    float* table = base + lay.table;
    const float2* lowS = reinterpret_cast<const float2*>(base + lay.low);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    float* listDist = base + lay.scratch + warp * lay.perWarp;
    int* listIdx = reinterpret_cast<int*>(listDist + 32 * LIST);
    // A launch over a queue learns its length on the device; a block without a tile leaves
    // before it loads the table (the launch over an empty queue costs little more than itself).
    const size_t n = ROWS && a.rowsCount ? min(size_t(*a.rowsCount), a.n) : a.n;
    const int tiles = int((n + 31) / 32);
    if (int(blockIdx.x) * lay.warps >= tiles) return;

    // c_uv, or 0 for the pairs the spec skips (the table's w_uv is 0 there). Two pairs per load
    // and four loads in flight per thread: every block reads the whole table from L2, and one
    // load at a time left the blocks waiting on its latency for ~8% of the kernel.
    {
        const float4* terms = reinterpret_cast<const float4*>(a.pairTerms);
        const int twos = lay.pairs / 2, step = int(blockDim.x);
        for (int e = tid; e < twos; e += 4 * step) {
            float4 t[4];
#pragma unroll
            for (int u = 0; u < 4; ++u)
                t[u] = e + u * step < twos ? terms[e + u * step] : make_float4(0, 0, 0, 0);
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                if (e + u * step < twos)
                    reinterpret_cast<float2*>(table)[e + u * step] =
                        make_float2(t[u].y == 0.0f ? 0.0f : t[u].x, t[u].w == 0.0f ? 0.0f : t[u].z);
            }
        }
        if (lay.pairs % 2 && tid == 0) {
            const float2 t = a.pairTerms[lay.pairs - 1];
            table[lay.pairs - 1] = t.y == 0.0f ? 0.0f : t.x;
        }
        float2* low = reinterpret_cast<float2*>(base + lay.low);
        for (int e = tid; e < a.g; e += blockDim.x)
            low[e] = reinterpret_cast<const float2*>(a.low)[e];
    }
    __syncthreads();

    const int kOut = a.kOut;
    for (int tile = blockIdx.x * lay.warps + warp; tile < tiles; tile += gridDim.x * lay.warps) {
        const size_t p0 = size_t(tile) * 32;
        const bool active = p0 + lane < n;
        // The lane's cell: the tile's 32 consecutive cells, or 32 consecutive entries of rows.
        const size_t p = ROWS && active ? a.rows[p0 + lane] : p0 + lane;
        {
            // All of the warp's list loads in flight at once (up to 2 x 17 per lane): one wait
            // on memory per tile, where a loop waited once per iteration.
            const size_t first = p0 * kOut;
            const int entries = int((n < p0 + 32 ? n : p0 + 32) - p0) * kOut;
            float dist[LIST];
            uint32_t idx[LIST];
#pragma unroll
            for (int m = 0; m < LIST; ++m) {
                const int e = lane + 32 * m;
                const size_t at = ROWS && e < entries
                                      ? size_t(a.rows[p0 + e / kOut]) * kOut + e % kOut
                                      : first + e;
                dist[m] = e < entries ? a.knnDist[at] : 0.0f;
                idx[m] = e < entries ? a.knnIdx[at] : 0u;
            }
#pragma unroll
            for (int m = 0; m < LIST; ++m) {
                const int e = lane + 32 * m;
                if (e < entries) {
                    listDist[e] = dist[m];
                    listIdx[e] = int(idx[m]);
                }
            }
        }
        __syncwarp();
        float bd[LIST], lx[LIST], ly[LIST], s[LIST];
        uint32_t key[LIST];  // pairKey of each neighbour
#pragma unroll
        for (int i = 0; i < LIST; ++i) {
            const bool in = i < topnn && active;
            bd[i] = in ? listDist[lane * kOut + i] : 0.0f;
            const uint32_t index = in ? uint32_t(listIdx[lane * kOut + i]) : 0u;
            key[i] = pairKey(index);
            const float2 l = lowS[index];
            lx[i] = l.x;
            ly[i] = l.y;
            s[i] = 0;
        }
        const bool marked = !(bd[0] >= 0.0f);  // non-finite input: placeNonFinite places it
        const bool ok = active && !marked &&
                        detail::computeScores<LIST>([&](int i) { return bd[i]; }, topn, topnn,
                                                    a.boost, [&](int i, float v) { s[i] = v; });
        // The rare paths index the scores at run time: they take the distances' place in the
        // scratch (and read the distances again from global memory).
        float* score = listDist + lane * kOut;
        auto spillScores = [&] {
#pragma unroll
            for (int i = 0; i < LIST; ++i)
                if (i < topn) score[i] = s[i];
        };
        float2 y = make_float2(0, 0);
        bool placed = false;
        bool needExact = a.rareOnly;
        detail::LeastSquares ls;
        if (ok && !needExact) {
            // log2 s_j joins the exponent of the pair weight: e = w 2^(log2 s_j - q^2 log2 e).
            // A score can be negative: the k-th neighbour tied with the (k+1)-th gets
            // 1 - e^(r 10/r - 10), which rounds to about -1e-7. Its log is NaN, so such points
            // take the rare path below, which multiplies the scores as the reference does.
            float logS[LIST];
#pragma unroll
            for (int j = 0; j < LIST; ++j) {
                logS[j] = fastLog2(s[j]);
                needExact = needExact || (j < topn && s[j] < 0.0f);
            }
#pragma unroll
            for (int i = 0; i < LIST; ++i) {
                if (i >= topn) break;
                const float2 lu = make_float2(lx[i], ly[i]);
                detail::addGravity(ls, s[i], lu);
                // The sums of addPairWeighted with s_i factored out of the inner loop.
                detail::LeastSquares row;
#pragma unroll
                for (int j = i + 1; j < LIST; ++j) {
                    if (j >= topn) break;
                    const float c = table[pairIndexOfKeys(key[i], key[j])];
                    const float hx = lx[j] - lu.x, hy = ly[j] - lu.y;
                    const float hp = fmaf(hx, hx, hy * hy);
                    const float w = c == 0.0f ? 0.0f : pairWeight<ADJUST_ONE>(hp, a.adjust);
                    // The list is sorted, so bd[j] is the pair's larger distance (see pairLoop).
                    needExact = needExact || bd[j] * c > detail::kExactRatio;
                    const float q = (bd[i] - bd[j]) * c;
                    const float e = w * fastExp2(fmaf(q, q * -1.4426950409f, logS[j]));
                    const float ex = e * hx, ey = e * hy;
                    row.a00 = fmaf(ex, hx, row.a00);
                    row.a01 = fmaf(ex, hy, row.a01);
                    row.a11 = fmaf(ey, hy, row.a11);
                    const float f = fmaf(q + 0.5f, hp, fmaf(hx, lu.x, hy * lu.y));
                    row.b0 = fmaf(f, ex, row.b0);
                    row.b1 = fmaf(f, ey, row.b1);
                }
                ls.a00 = fmaf(s[i], row.a00, ls.a00);
                ls.a01 = fmaf(s[i], row.a01, ls.a01);
                ls.a11 = fmaf(s[i], row.a11, ls.a11);
                ls.b0 = fmaf(s[i], row.b0, ls.b0);
                ls.b1 = fmaf(s[i], row.b1, ls.b1);
            }
        }
        // The warp's cells that need the exact forms go to the queue (one atomic a warp), for
        // the launch over it; the rest of the warp goes on without waiting for them.
        bool queued = false;
        if (a.rare) {
            const bool wants = ok && needExact;
            const unsigned want = __ballot_sync(0xffffffffu, wants);
            if (want) {
                const int leader = __ffs(want) - 1;
                unsigned long long base = 0;
                if (lane == leader) base = atomicAdd(a.rareCount, (unsigned long long)__popc(want));
                base = __shfl_sync(0xffffffffu, base, leader);
                const unsigned long long slot = base + __popc(want & ((1u << lane) - 1u));
                if (wants && slot < a.rareCapacity) {
                    a.rare[slot] = uint32_t(p);
                    queued = true;
                }
            }
        }
        if (ok && !queued) {
            // Rare: a pair whose O(1) form of D loses digits, or a negative score. All pairs again,
            // rolled (indices and scores from the scratch, distances from the lists in global
            // memory), with the residual or the O(d) form where it is needed (a branch kept out
            // of the fast loop).
            if (needExact) {
                ls = detail::LeastSquares{};
                spillScores();
                const float* dist = a.knnDist + p * kOut;
                const int* idx = listIdx + lane * kOut;
                // The distances' residuals, found for the whole list at the first pair that
                // needs them (see pairLoop).
                float residual[LIST];
                bool residuals = false;
                for (int i = 0; i < topn; ++i) {
                    const float2 lu = lowS[idx[i]];
                    detail::addGravity(ls, score[i], lu);
                    // Unrolled, so that several pairs' loads (scratch, shared, L1) are in
                    // flight: one at a time, this loop waited on each.
#pragma unroll 4
                    for (int j = i + 1; j < topn; ++j) {
                        const uint32_t u = uint32_t(idx[i]), v = uint32_t(idx[j]);
                        const float c = table[detail::pairIndex(u, v)];
                        const float2 lv = lowS[v];
                        const float hx = lv.x - lu.x, hy = lv.y - lu.y;
                        const float w =
                            c == 0.0f ? 0.0f : pairWeight<ADJUST_ONE>(hx * hx + hy * hy, a.adjust);
                        const float ratio = dist[j] * c;
                        float q = (dist[i] - dist[j]) * c;
                        if (ratio > detail::kResidualRatio) {
                            q = detail::exactPosition(a, p, int(u), int(v)) - 0.5f;
                        } else if (ratio > detail::kExactRatio) {
                            if (!residuals) {
                                detail::tableListResiduals(a, p, idx, dist, topn, residual);
                                residuals = true;
                            }
                            q = detail::positionWithResiduals(dist[i], dist[j], residual[i],
                                                              residual[j], c);
                        }
                        detail::addPairWeighted(ls, score[i] * score[j], q, lu, lv, w);
                    }
                }
            }
            placed = detail::solve(ls, y);
            // Queued, so that the lane does not hold its warp.
            if (placed) detail::deferWhereIllConditioned(a, p, ls, y);
        }
        if (active && !marked && !queued) {
            if (a.fellBack) a.fellBack[p] = placed ? 0 : 1;
            if (!placed) {
                // Weights and indices from the scratch (registers cannot be indexed at run time).
                spillScores();
                y = detail::neighbourMean([&](int i) { return uint32_t(listIdx[lane * kOut + i]); },
                                          [&](int i) { return score[i]; }, ok, topn, a.low);
                atomicAdd(a.counters + 1, 1ull);
            }
            reinterpret_cast<float2*>(a.out)[p] = y;
        }
        __syncwarp();  // the scratch is loaded again by the next tile
    }
}

template <int LIST, bool ADJUST_ONE, bool FULL>
void launchOne(const ProjectionArgs& a, cudaStream_t stream) {
    const TableLayout lay(a.g, LIST, warpsFor(a.g, LIST));
    if (a.rows)
        detail::launchPersistent<tableProjectionKernel<LIST, ADJUST_ONE, FULL, true>>(
            a, lay, lay.warps, lay.bytes(), stream, "launch of tableProjectionKernel");
    else
        detail::launchPersistent<tableProjectionKernel<LIST, ADJUST_ONE, FULL, false>>(
            a, lay, lay.warps, lay.bytes(), stream, "launch of tableProjectionKernel");
}

/// False when SEPAL_TABLE_RARE_QUEUE=0 asks for the exact forms inline, in the warp that met
/// them, for comparisons (read at every launch, so that a test can compare both ways).
bool rareQueueOn() {
    const char* v = std::getenv("SEPAL_TABLE_RARE_QUEUE");
    return !(v && std::string(v) == "0");
}

/// False when SEPAL_TABLE_QUEUE_LISTS=0 asks for the queued cells to be placed by the table
/// kernel's second launch (a lane a cell, the same bits as inline) instead of the list
/// projection (a warp a cell), for comparisons (read at every launch).
bool queueToLists() {
    const char* v = std::getenv("SEPAL_TABLE_QUEUE_LISTS");
    return !(v && std::string(v) == "0");
}

/// True when SEPAL_TABLE_FULL=0 asks for the choice before full lists took any adjust (run-time
/// bounds for adjust other than 1), for comparisons.
bool fullListsOff() {
    static const bool off = [] {
        const char* v = std::getenv("SEPAL_TABLE_FULL");
        return v && std::string(v) == "0";
    }();
    return off;
}

/// The instantiation for LIST: the full list (topn = LIST - 1 and topnn = LIST) with
/// compile-time bounds, for adjust 1 and for any other adjust (the app's default recipe takes
/// adjust 3; with run-time bounds its projection was 4-11 % slower on an H200); any other list
/// length with run-time ones.
template <int LIST>
void launchForList(const ProjectionArgs& a, cudaStream_t stream) {
    const bool adjustOne = a.adjust == 1.0f;
    if (a.topn == LIST - 1 && a.topnn == LIST && (adjustOne || !fullListsOff()))
        return adjustOne ? launchOne<LIST, true, true>(a, stream)
                         : launchOne<LIST, false, true>(a, stream);
    if (!adjustOne) return launchOne<LIST, false, false>(a, stream);
    launchOne<LIST, true, false>(a, stream);
}

}  // namespace

size_t tableProjectionSharedBytes(int g, int topnn) {
    return TableLayout(g, topnn <= 9 ? 9 : 17, 4).bytes();
}

void launchProjectTable(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    beginDeferredSolves(a, stream);
    auto launch = [&](const ProjectionArgs& b) {
        if (b.topnn <= 9)
            launchForList<9>(b, stream);
        else
            launchForList<17>(b, stream);
    };
    if (!a.rare || !rareQueueOn()) {
        ProjectionArgs inlined = a;
        inlined.rare = nullptr;
        launch(inlined);
    } else {
        SEPAL_CUDA_CHECK(cudaMemsetAsync(a.rareCount, 0, sizeof(unsigned long long), stream));
        launch(a);
        // The queued cells, read through rows (as the cells a list names): a grid for the
        // queue's room, whose warps past its length find no cell. Where most cells of a crowded
        // model need the exact forms (a batch SOM's middle epochs: 80-98 %), the list
        // projection placed them all in 5.4-6.2 ms against 7-10 for the table kernel's rolled
        // pass, a lane a cell (GPU_NOTES.md): it takes the queue, a warp a cell.
        ProjectionArgs queued = a;
        queued.rows = a.rare;
        queued.rowsCount = a.rareCount;
        queued.n = a.rareCapacity;
        queued.rare = nullptr;
        queued.rareOnly = true;
        if (queueToLists())
            launchListKernel(queued, stream);
        else
            launch(queued);
    }
    finishDeferredSolves(a, stream);
}

}  // namespace sepal::cuda
