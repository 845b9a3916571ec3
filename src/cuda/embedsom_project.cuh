#pragma once
// What the one-thread-per-point kernels share: a point's exact squared distance to a landmark row
// (fused, tensor, resident k-NN), one pair's contribution and its O(d) fallback (also the table
// projection), and the second half of the one-pass kernels (fused, tensor), where the sorted
// neighbour list of a point, held in registers, becomes its 2D position through the O(k^2) pair
// loop of embedsom.md's "faster, exact form".

#include <cfloat>
#include <climits>

#include "cuda/embedsom_device.cuh"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda::detail {

/// Pair-table entries loaded together in the pair loop.
constexpr int kPairBatch = 8;

/// D = <x - L_u, L_v - L_u> / |L_v - L_u|^2 from the rows in global memory (the reference form,
/// with its roundings).
__device__ __noinline__ inline float exactPosition(const ProjectionArgs& a, size_t p, int u,
                                                   int v) {
    const float* x = a.points + p * a.stride;
    const float* lu = a.landmarks + size_t(u) * a.stride;
    const float* lv = a.landmarks + size_t(v) * a.stride;
    float sqd = 0, dot = 0;
    for (int t = 0; t < a.stride; ++t) {
        const float e = lv[t] - lu[t];
        sqd = addSquare(sqd, e);
        dot = __fadd_rn(dot, __fmul_rn(x[t] - lu[t], e));
    }
    return dot / sqd;
}

/// The rounding residual of `dist`, point p's float squared distance to landmark u: the
/// difference-form distance in double less dist, rounded to float (kResidualRatio). Few
/// registers: a noinline call's registers count in every kernel that makes it, and the one-pass
/// kernels (fused, tensor) are at their limits.
__device__ __noinline__ inline float distanceResidual(const ProjectionArgs& a, size_t p, int u,
                                                      float dist) {
    const float* x = a.points + p * a.stride;
    const float* lu = a.landmarks + size_t(u) * a.stride;
    double sum = 0;
    for (int t = 0; t < a.stride; ++t) {
        const double e = double(x[t]) - double(lu[t]);
        sum = fma(e, e, sum);
    }
    return float(sum - double(dist));
}

/// distanceResidual with the rows read a float4 at a time into two independent double sums (a
/// float4's even and odd components), UNROLL float4 steps in flight. A double sum's order moves
/// the residual by about 2^-53 of the distance, far below its own rounding to float; rows are
/// padded to a multiple of 4 floats and 16-byte aligned. Inline: the list kernel calls it as its
/// own code (at its register cap).
template <int UNROLL>
__device__ __forceinline__ float residualByVectors(const ProjectionArgs& a, size_t p, int u,
                                                   float dist) {
    const float4* x = reinterpret_cast<const float4*>(a.points + p * a.stride);
    const float4* lu = reinterpret_cast<const float4*>(a.landmarks + size_t(u) * a.stride);
    double s[2] = {};
#pragma unroll UNROLL
    for (int c = 0; c < a.stride / 4; ++c) {
        const float4 xv = __ldg(x + c), lv = __ldg(lu + c);
        const double e[4] = {double(xv.x) - double(lv.x), double(xv.y) - double(lv.y),
                             double(xv.z) - double(lv.z), double(xv.w) - double(lv.w)};
#pragma unroll
        for (int k = 0; k < 4; ++k) s[k % 2] = fma(e[k], e[k], s[k % 2]);
    }
    return float((s[0] + s[1]) - double(dist));
}

/// The residuals (residualByVectors', the same sums in the same order) of the first topn
/// entries of point p's list (landmarks idx, float distances dist) into residual[], GROUP
/// landmarks at a time with UNROLL float4 steps of their rows in flight: the point's row is read
/// once for the group, and the group's loads wait on L2 together.
template <int GROUP, int UNROLL>
__device__ __forceinline__ void residualsOfList(const ProjectionArgs& a, size_t p, const int* idx,
                                                const float* dist, int topn, float* residual) {
    const float4* x = reinterpret_cast<const float4*>(a.points + p * a.stride);
    for (int m0 = 0; m0 < topn; m0 += GROUP) {
        const float4* rows[GROUP];
        double even[GROUP], odd[GROUP];
#pragma unroll
        for (int k = 0; k < GROUP; ++k) {
            // A short last group repeats the list's last landmark (its residual is not kept).
            const int m = m0 + k < topn ? m0 + k : topn - 1;
            rows[k] = reinterpret_cast<const float4*>(a.landmarks + size_t(idx[m]) * a.stride);
            even[k] = odd[k] = 0;
        }
#pragma unroll UNROLL
        for (int c = 0; c < a.stride / 4; ++c) {
            const float4 xv = __ldg(x + c);
            float4 lv[GROUP];
#pragma unroll
            for (int k = 0; k < GROUP; ++k) lv[k] = __ldg(rows[k] + c);
#pragma unroll
            for (int k = 0; k < GROUP; ++k) {
                const double e0 = double(xv.x) - double(lv[k].x);
                const double e1 = double(xv.y) - double(lv[k].y);
                const double e2 = double(xv.z) - double(lv[k].z);
                const double e3 = double(xv.w) - double(lv[k].w);
                even[k] = fma(e2, e2, fma(e0, e0, even[k]));
                odd[k] = fma(e3, e3, fma(e1, e1, odd[k]));
            }
        }
#pragma unroll
        for (int k = 0; k < GROUP; ++k)
            if (m0 + k < topn) residual[m0 + k] = float((even[k] + odd[k]) - double(dist[m0 + k]));
    }
}

/// residualsOfList as a call of its own, for the table kernel, whose registers it does not
/// raise. Found a landmark at a time (a call each, four float4 steps in flight), the residuals
/// of a list of 16 at d 32 waited on L2 32 times a lane, and held 41 % of the kernel's samples
/// on trained-like landmarks (ncu); two landmarks and eight steps at a time wait 8 times.
__device__ __noinline__ inline void tableListResiduals(const ProjectionArgs& a, size_t p,
                                                       const int* idx, const float* dist, int topn,
                                                       float* residual) {
    // Measured on an H200 against one landmark at a time with four or eight steps: two and
    // eight took the crowded table projection from 3.35 to 2.68 ms (GPU_NOTES.md); four
    // landmarks spill 256 bytes.
    residualsOfList<2, 8>(a, p, idx, dist, topn, residual);
}

/// D - 0.5 of a pair past kExactRatio and within kResidualRatio, from the distances (ai <= aj)
/// and their residuals: the O(1) form without its cancellation.
__device__ __forceinline__ float positionWithResiduals(float ai, float aj, float ri, float rj,
                                                       float c) {
    return __fmul_rn(__fadd_rn(__fsub_rn(ai, aj), __fsub_rn(ri, rj)), c);
}

/// A point's coordinates with NaN and infinity replaced by 0 (finiteOrZero); `bad` records
/// that one was.
__device__ __forceinline__ float4 finiteOrZero4(float4 v, bool& bad) {
    return make_float4(finiteOrZero(v.x, bad), finiteOrZero(v.y, bad), finiteOrZero(v.z, bad),
                       finiteOrZero(v.w, bad));
}

/// Squared distance from the point x (KVEC float4s) to a landmark row, in difference form and
/// dimension order, each square rounded before it is added, as the reference and the CPU backend
/// compute it: the fused and tensor kernels' neighbours and distances are the host's bit for bit.
/// rowAt(c) loads float4 c of the row (from shared memory or through the read-only cache).
template <int KVEC, class RowAt>
__device__ __forceinline__ float squaredDistance(const float4 (&x)[KVEC], RowAt rowAt) {
    float acc = 0;
#pragma unroll
    for (int c = 0; c < KVEC; ++c) {
        const float4 lv = rowAt(c);
        float e = x[c].x - lv.x;
        acc = addSquare(acc, e);
        e = x[c].y - lv.y;
        acc = addSquare(acc, e);
        e = x[c].z - lv.z;
        acc = addSquare(acc, e);
        e = x[c].w - lv.w;
        acc = addSquare(acc, e);
    }
    return acc;
}

/// One pair's contribution with its constants from the pair table: q = D - 0.5 and
/// w = (1 + hp)^-adjust / hp (0 for pairs the spec skips), so that no division or power is left.
/// Same sums as addPair: A += s/hp h h^T, b += s (D + <h, l_u>/hp) h with s/hp = su sv e^-q^2 w.
__device__ __forceinline__ void addPairWeighted(LeastSquares& ls, float suv, float q, float2 lu,
                                                float2 lv, float w) {
    const float hx = lv.x - lu.x, hy = lv.y - lu.y;
    const float hp = hx * hx + hy * hy;
    // __expf: relative error ~1e-6 where the weight matters (q^2 < 10), far below tolerance.
    const float e = suv * __expf(-q * q) * w;
    const float ex = e * hx, ey = e * hy;
    ls.a00 += ex * hx;
    ls.a01 += ex * hy;
    ls.a11 += ey * hy;
    const float f = (q + 0.5f) * hp + (hx * lu.x + hy * lu.y);
    ls.b0 += f * ex;
    ls.b1 += f * ey;
}

/// The O(k^2) pair loop over a point's list in shared memory: mine[i] = (a_i, score_i, l_u),
/// mineIdx[i] = u.
template <int LIST>
__device__ __forceinline__ void pairLoop(const ProjectionArgs& a, size_t p, const float4* mine,
                                         const int* mineIdx, LeastSquares& ls) {
    // The distances' residuals, found for the whole list at the first pair that needs them.
    float residual[LIST];
    bool residuals = false;
    for (int i = 0; i < a.topn; ++i) {
        const float4 ei = mine[i];
        const int u = mineIdx[i];
        const float2 lu = make_float2(ei.z, ei.w);
        addGravity(ls, ei.y, lu);
        // The pair terms are gathered kPairBatch at a time before any is used, so that their
        // loads (L2 latency: the table outgrows L1) overlap instead of queueing.
        for (int j0 = i + 1; j0 < a.topn; j0 += kPairBatch) {
            float2 cw[kPairBatch];
#pragma unroll
            for (int b = 0; b < kPairBatch; ++b) {
                const int j = min(j0 + b, a.topn - 1);
                cw[b] = __ldg(a.pairTerms + pairIndex(u, mineIdx[j]));
            }
#pragma unroll
            for (int b = 0; b < kPairBatch; ++b) {
                const int j = j0 + b;
                if (j >= a.topn) break;
                const float4 ej = mine[j];
                // The list is sorted, so a_j is the pair's larger distance. The O(1) form loses
                // digits when the landmarks are much closer to each other than to the point
                // (a_u - a_v cancels, as among trained landmarks): such pairs take the
                // distances' residuals, or beyond kResidualRatio the O(d) form.
                const float ratio = ej.x * cw[b].x;
                float q = (ei.x - ej.x) * cw[b].x;
                if (ratio > kResidualRatio) {
                    q = exactPosition(a, p, u, mineIdx[j]) - 0.5f;
                } else if (ratio > kExactRatio) {
                    if (!residuals) {
                        for (int m = 0; m < a.topn; ++m)
                            residual[m] = distanceResidual(a, p, mineIdx[m], mine[m].x);
                        residuals = true;
                    }
                    q = positionWithResiduals(ei.x, ej.x, residual[i], residual[j], cw[b].x);
                }
                addPairWeighted(ls, ei.y * ej.y, q, lu, make_float2(ej.z, ej.w), cw[b].y);
            }
        }
    }
}

/// Writes point p's k-NN (when asked) and places it from its sorted list (bd, bi): scores, the
/// pair loop and the 2x2 solve; counts degenerate points and queues non-finite ones. `lists` is
/// block-shared memory of 20 B x LIST x THREADS; every thread of the block must call this.
template <int LIST, int THREADS>
__device__ __forceinline__ void placeFromList(const ProjectionArgs& a, size_t p, bool active,
                                              bool bad, const float (&bd)[LIST],
                                              const int (&bi)[LIST], float4* lists) {
    const int tid = threadIdx.x;
    if (a.knnIdx && active) {
#pragma unroll
        for (int i = 0; i < LIST; ++i) {
            if (i < a.kOut) {
                a.knnIdx[p * a.kOut + i] = uint32_t(bi[i]);
                a.knnDist[p * a.kOut + i] = bd[i];
            }
        }
    }
    if (!a.out) return;  // uniform over the grid: no barrier follows for anyone

    const float2* low = reinterpret_cast<const float2*>(a.low);
    float4* mine = lists + tid * LIST;  // (distance, score, l_x, l_y) of neighbour i
    int* mineIdx = reinterpret_cast<int*>(lists + THREADS * LIST) + tid * LIST;
#pragma unroll
    for (int i = 0; i < LIST; ++i) {
        if (i < a.topnn) {  // the last one only for solveLikeReference's scores
            const float2 l = __ldg(low + bi[i]);
            mine[i] = make_float4(bd[i], 0, l.x, l.y);
            mineIdx[i] = bi[i];
        }
    }
    const bool ok = computeScores<LIST>([&](int i) { return bd[i]; }, a.topn, a.topnn, a.boost,
                                        [&](int i, float s) { mine[i].y = s; });

    float2 y = make_float2(0, 0);
    bool placed = false;
    if (ok && !bad) {
        LeastSquares ls;
        pairLoop<LIST>(a, active ? p : 0, mine, mineIdx, ls);
        placed = solve(ls, y);
        if (placed && active) referenceWhereIllConditioned(a, p, ls, &mine[0].x, 4, mineIdx, y);
    }
    if (!placed) {
        y = neighbourMean([&](int i) { return uint32_t(mineIdx[i]); },
                          [&](int i) { return mine[i].y; }, ok, a.topn, a.low);
    }
    if (active) {
        reinterpret_cast<float2*>(a.out)[p] = y;
        if (bad)
            queueNonFinite(a, p);
        else if (!placed)
            atomicAdd(a.counters + 1, 1ull);
    }
}

}  // namespace sepal::cuda::detail
