// The list projection: EmbedSOM's second half from sorted neighbour lists, for lists and landmark
// sets the table projection cannot hold (k + 1 > 17, or a pair table beyond shared memory).
//
// Why one warp per point: at g = 1024, k = 32 each point has 496 pairs, and each pair reads its
// (c_uv, w_uv) from the table in L2 at a random place. Spread over the 32 lanes of a warp, a
// point's pairs keep 4 such reads in flight per lane with few registers, so that many warps per
// multiprocessor hide the L2 latency; one thread per point (the one-pass kernels) holds the whole
// list in registers or shared memory and runs few warps.
// Each warp reads its point's list (two entries per lane), computes the scores (the moments in
// the reference's order), writes (distance, score, 2D position) and the index of each neighbour to
// its shared rows, then takes pairs lane + 32 m of the block's (i, j) enumeration; the five sums of
// the 2x2 system are reduced over the warp and every lane solves it.
// With args.pairTermsByRank (BY_RANK) each entry's locality rank sits beside its index, and a
// pair's terms come from the dense table by rank: on clustered cells a warp's load of 32 pairs
// then touches about a third of the lines (pair_rank.h); the values, so the positions, are the
// same.
// Lists whose first distance is negative belong to points with NaN or infinity (marked by the
// k-NN, placed later by placeNonFinite): skipped here.
// With a list of rows (the neighbour cache's re-projection after a drag, the table projection's
// exact-form queue), warp w projects cell rows[w]; a cell listed twice is computed twice, alike,
// so both writes agree.
// Limits: topnn <= 64.

#include <atomic>
#include <cfloat>
#include <cstdint>

#include "cuda/cuda_error.h"
#include "cuda/embedsom_kernels.h"
#include "cuda/embedsom_project.cuh"
#include "cuda/point_kernel_launch.cuh"

namespace sepal::cuda {
namespace {

constexpr int kWarps = 8;
constexpr int kMaxList = kListMaxList;
constexpr int kMaxPairs = kMaxList * (kMaxList - 1) / 2;
constexpr int kPairLoads = 4;                       // pair-table reads in flight per lane
std::atomic<unsigned long long> launchesByRank{0};  // listLaunchesByRank

/// The terms of the pair of list entries i and j, from the triangular table by index or (BY_RANK)
/// the dense one by rank.
template <bool BY_RANK>
__device__ __forceinline__ float2 pairTermsOf(const ProjectionArgs& a, const uint32_t* idx,
                                              const uint16_t* rank, int i, int j) {
    if constexpr (BY_RANK)
        return __ldg(a.pairTermsByRank + uint32_t(rank[i]) * uint32_t(a.g) + uint32_t(rank[j]));
    else
        return __ldg(a.pairTerms + detail::pairIndex(idx[i], idx[j]));
}

/// The warp's point's pairs between kExactRatio and kResidualRatio, which the main loop left
/// out, added to each lane's sums with the distances' residuals (found a landmark a lane, into
/// `residuals`: inline, with two double sums, so that the registers are the kernel's own; a
/// noinline call's held 30 more, two blocks a multiprocessor instead of three. A warp-wide sum
/// of each landmark in turn, 10 shuffles and 5 dependent double additions a landmark, held 49 %
/// of the kernel's samples on trained-like landmarks).
template <bool BY_RANK>
__device__ __forceinline__ void addResidualPairs(const ProjectionArgs& a, size_t p,
                                                 const uint16_t* pairs, int pairCount,
                                                 const float4* mine, const uint32_t* mineIdx,
                                                 const uint16_t* mineRank, float* residuals,
                                                 detail::LeastSquares& ls) {
    const int lane = threadIdx.x & 31;
    for (int i = lane; i < a.topn; i += 32)
        residuals[i] = detail::residualByVectors<2>(a, p, int(mineIdx[i]), mine[i].x);
    __syncwarp();
    for (int e = lane; e < pairCount; e += 32) {
        const uint32_t pair = pairs[e];
        const int i = int(pair >> 8), j = int(pair & 0xffu);
        const float2 cw = pairTermsOf<BY_RANK>(a, mineIdx, mineRank, i, j);
        const float4 ei = mine[i], ej = mine[j];
        const float ratio = ej.x * cw.x;
        if (!(ratio > detail::kExactRatio && ratio <= detail::kResidualRatio)) continue;
        const float q = detail::positionWithResiduals(ei.x, ej.x, residuals[i], residuals[j], cw.x);
        detail::addPairWeighted(ls, ei.y * ej.y, q, make_float2(ei.z, ei.w),
                                make_float2(ej.z, ej.w), cw.y);
    }
}

/// scoreMoments of the warp's point, whose entries lane and lane + 32 have roots r[0] and r[1]:
/// each lane finds its entries' terms (w_i = 1 / (i + 1), r_i w_i, r_i^2 w_i) into `terms`, and
/// every lane sums them in the list's order with the same roundings. Every lane loading each
/// distance, taking its root and dividing for its weight in turn held about 30 % of the
/// kernel's samples on k-means-trained landmarks at k 17.
__device__ __forceinline__ detail::ScoreMoments warpScoreMoments(const float (&r)[2], int topn,
                                                                 int topnn, float boost,
                                                                 float4* terms) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int i = lane + 32 * h;
        if (i >= topnn) continue;
        const float w = __fdiv_rn(1.0f, float(i + 1));
        terms[i] = make_float4(w, __fmul_rn(r[h], w), __fmul_rn(__fmul_rn(r[h], r[h]), w), r[h]);
    }
    __syncwarp();
    float sumw = 0, sumr = 0, sumr2 = 0;
#pragma unroll 4
    for (int i = 0; i < topnn; ++i) {
        const float4 t = terms[i];
        sumw = __fadd_rn(sumw, t.x);
        sumr = __fadd_rn(sumr, t.y);
        sumr2 = __fadd_rn(sumr2, t.z);
    }
    const float rLast = terms[topnn - 1].w;
    __syncwarp();  // the rows are written with the scores next
    return detail::momentsFromSums(sumw, sumr, sumr2, rLast, topn, topnn, boost);
}

template <bool BY_RANK>
__global__ void __launch_bounds__(32 * kWarps) listProjectionKernel(const ProjectionArgs a) {
    __shared__ uint16_t pairs[kMaxPairs];  // (i << 8 | j), i < j < topn, row by row
    __shared__ float4 entries[kWarps][kMaxList];
    __shared__ uint32_t indices[kWarps][kMaxList];
    __shared__ uint16_t ranks[BY_RANK ? kWarps : 1][BY_RANK ? kMaxList : 1];
    __shared__ float residuals[kWarps][kMaxList];  // the distances' (kResidualRatio), when needed
    const int topn = a.topn, topnn = a.topnn, kOut = a.kOut;
    // A launch over a queue (the table projection's exact-form cells) reads its length here; a
    // block without a cell leaves before it builds the pairs (the queue is often short).
    auto cells = [&a] { return a.rowsCount ? min(a.n, size_t(*a.rowsCount)) : a.n; };
    if (size_t(blockIdx.x) * kWarps >= cells()) return;
    const int pairCount = topn * (topn - 1) / 2;
    for (int e = threadIdx.x; e < pairCount; e += blockDim.x) {
        int i = 0, rowStart = 0;
        while (e >= rowStart + (topn - 1 - i)) rowStart += topn - 1 - i++;
        pairs[e] = uint16_t(i << 8 | (i + 1 + e - rowStart));
    }
    __syncthreads();

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float4* mine = entries[warp];
    uint32_t* mineIdx = indices[warp];
    uint16_t* mineRank = ranks[BY_RANK ? warp : 0];
    const float2* low = reinterpret_cast<const float2*>(a.low);
    const size_t count = cells();  // read again: one register less over the pairs' loop
    for (size_t w = size_t(blockIdx.x) * kWarps + warp; w < count;
         w += size_t(gridDim.x) * kWarps) {
        const size_t p = a.rows ? a.rows[w] : w;
        // Entries lane and lane + 32 of the list.
        float d[2], r[2];
        uint32_t u[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i = lane + 32 * h;
            const bool in = i < topnn;
            d[h] = in ? a.knnDist[p * kOut + i] : 0.0f;
            u[h] = in ? a.knnIdx[p * kOut + i] : 0u;
            r[h] = sqrtf(d[h]);
        }
        if (!(__shfl_sync(0xffffffffu, d[0], 0) >= 0.0f)) continue;  // placeNonFinite's

        // Scores (embedsom.md step 2): the moments in the reference's order, then each lane's
        // own scores.
        const detail::ScoreMoments m = warpScoreMoments(r, topn, topnn, a.boost, mine);
        bool ok = m.ok;
        bool finite = true, positive = false;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i = lane + 32 * h;
            if (i >= topn) continue;
            const float s = detail::scoreOf(m, r[h], topn < topnn);
            finite = finite && isfinite(s);
            positive = positive || s > 0.0f;
            const float2 l = low[u[h]];
            mine[i] = make_float4(d[h], ok ? s : 0.0f, l.x, l.y);
            mineIdx[i] = u[h];
            if constexpr (BY_RANK) mineRank[i] = __ldg(a.landmarkRank + u[h]);
        }
        ok = ok && __all_sync(0xffffffffu, finite) && __any_sync(0xffffffffu, positive);
        __syncwarp();

        float2 y = make_float2(0, 0);
        bool placed = false;
        if (ok) {
            detail::LeastSquares ls;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int i = lane + 32 * h;
                if (i < topn) {
                    const float4 e = mine[i];
                    detail::addGravity(ls, e.y, make_float2(e.z, e.w));
                }
            }
            // The pairs between kExactRatio and kResidualRatio wait for addResidualPairs, which
            // runs only when some lane met one (see pairLoop).
            bool needResiduals = false;
            for (int e0 = lane; e0 < pairCount; e0 += 32 * kPairLoads) {
                int pi[kPairLoads], pj[kPairLoads];
                float2 cw[kPairLoads];
#pragma unroll
                for (int b = 0; b < kPairLoads; ++b) {
                    const int e = min(e0 + 32 * b, pairCount - 1);
                    const uint32_t pair = pairs[e];
                    pi[b] = int(pair >> 8);
                    pj[b] = int(pair & 0xffu);
                    cw[b] = pairTermsOf<BY_RANK>(a, mineIdx, mineRank, pi[b], pj[b]);
                }
#pragma unroll
                for (int b = 0; b < kPairLoads; ++b) {
                    if (e0 + 32 * b >= pairCount) break;
                    const float4 ei = mine[pi[b]], ej = mine[pj[b]];
                    // The list is sorted: a_j is the pair's larger distance (see pairLoop).
                    const float ratio = ej.x * cw[b].x;
                    if (ratio > detail::kExactRatio && ratio <= detail::kResidualRatio) {
                        needResiduals = true;
                        continue;
                    }
                    const float q = ratio > detail::kExactRatio
                                        ? detail::exactPosition(a, p, int(mineIdx[pi[b]]),
                                                                int(mineIdx[pj[b]])) -
                                              0.5f
                                        : (ei.x - ej.x) * cw[b].x;
                    detail::addPairWeighted(ls, ei.y * ej.y, q, make_float2(ei.z, ei.w),
                                            make_float2(ej.z, ej.w), cw[b].y);
                }
            }
            if (__any_sync(0xffffffffu, needResiduals))
                addResidualPairs<BY_RANK>(a, p, pairs, pairCount, mine, mineIdx, mineRank,
                                          residuals[warp], ls);
            ls.a00 = detail::warpSum(ls.a00);
            ls.a01 = detail::warpSum(ls.a01);
            ls.a11 = detail::warpSum(ls.a11);
            ls.b0 = detail::warpSum(ls.b0);
            ls.b1 = detail::warpSum(ls.b1);
            placed = detail::solve(ls, y);
            // Queued, so that the warp goes on to its next cell.
            if (placed && lane == 0) detail::deferWhereIllConditioned(a, p, ls, y);
        }
        if (lane == 0) {
            if (a.fellBack) a.fellBack[p] = placed ? 0 : 1;
            if (!placed) {
                y = detail::neighbourMean([&](int i) { return mineIdx[i]; },
                                          [&](int i) { return mine[i].y; }, ok, topn, a.low);
                atomicAdd(a.counters + 1, 1ull);
            }
            reinterpret_cast<float2*>(a.out)[p] = y;
        }
        __syncwarp();  // the rows are written again for the next point
    }
}

/// Launches the kernel's instantiation with its grid: as many blocks as fit at once on the
/// launch's multiprocessors, or fewer for a short list of cells.
template <bool BY_RANK>
void launchListInstance(const ProjectionArgs& a, cudaStream_t stream) {
    static const int blocksPerSm = [] {
        int count = 0;
        SEPAL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &count, listProjectionKernel<BY_RANK>, 32 * kWarps, 0));
        return count;
    }();
    const size_t wanted = (a.n + kWarps - 1) / kWarps;
    const size_t resident =
        size_t(blocksPerSm > 0 ? blocksPerSm : 1) * size_t(detail::multiprocessorsFor(a));
    const unsigned blocks = unsigned(wanted < resident ? wanted : resident);
    listProjectionKernel<BY_RANK><<<blocks, 32 * kWarps, 0, stream>>>(a);
    check(cudaGetLastError(), "launch of listProjectionKernel", __FILE__, __LINE__);
}

}  // namespace

void launchListKernel(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    if (a.pairTermsByRank && a.landmarkRank) {
        launchListInstance<true>(a, stream);
        ++launchesByRank;
    } else {
        launchListInstance<false>(a, stream);
    }
}

unsigned long long listLaunchesByRank() {
    return launchesByRank.load();
}

void launchProjectLists(const ProjectionArgs& a, cudaStream_t stream) {
    if (a.n == 0) return;
    beginDeferredSolves(a, stream);
    launchListKernel(a, stream);
    finishDeferredSolves(a, stream);
}

}  // namespace sepal::cuda
