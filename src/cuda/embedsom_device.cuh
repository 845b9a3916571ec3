#pragma once
// Device functions shared by the EmbedSOM kernels: scores, one landmark pair's contribution,
// the 2x2 solve and the fallback for points the formula cannot place (embedsom.md).

#include <cstdint>

#include "core/embedsom/exactness.h"
#include "cuda/embedsom_kernels.h"

namespace sepal::cuda::detail {

using sepal::kExactRatio;
using sepal::kReferenceConditioning;
using sepal::kResidualRatio;

/// Index of the unordered pair {u, v} in the triangular pair table.
__device__ __forceinline__ uint32_t pairIndex(uint32_t u, uint32_t v) {
    const uint32_t lo = u < v ? u : v, hi = u < v ? v : u;
    return hi * (hi + 1) / 2 + lo;
}

/// The 2x2 system A y = b being accumulated (A symmetric).
struct LeastSquares {
    float a00 = 0, a01 = 0, a11 = 0, b0 = 0, b1 = 0;
};

/// (1 + hp)^-adjust, with the common adjust values on cheap paths.
__device__ __forceinline__ float adjustFactor(float hp, float adjust) {
    if (adjust == 1.0f) return 1.0f / (1.0f + hp);
    if (adjust == 0.0f) return 1.0f;
    return float(pow(double(1.0f + hp), double(-adjust)));
}

/// Gravity toward a neighbour's 2D position (keeps A positive definite).
__device__ __forceinline__ void addGravity(LeastSquares& ls, float score, float2 l) {
    const float gs = score * 1e-5f;
    ls.a00 += gs;
    ls.a11 += gs;
    ls.b0 += gs * l.x;
    ls.b1 += gs * l.y;
}

/// One pair's contribution: D is where the point falls on the segment from L_u to L_v.
__device__ __forceinline__ void addPair(LeastSquares& ls, float su, float sv, float dPos, float2 lu,
                                        float2 lv, float adjust) {
    const float hx = lv.x - lu.x, hy = lv.y - lu.y;
    const float hp = hx * hx + hy * hy;
    if (hp < 1e-10f) return;  // both landmarks on one 2D spot
    const float q = dPos - 0.5f;
    const float s = su * sv * adjustFactor(hp, adjust) * expf(-q * q);
    const float inv = 1.0f / hp;
    const float e = s * inv;
    ls.a00 += e * hx * hx;
    ls.a01 += e * hx * hy;
    ls.a11 += e * hy * hy;
    const float f = s * (dPos + (hx * lu.x + hy * lu.y) * inv);
    ls.b0 += f * hx;
    ls.b1 += f * hy;
}

/// Cramer's rule; false when the result is not finite.
__device__ __forceinline__ bool solve(const LeastSquares& ls, float2& y) {
    const float det = ls.a00 * ls.a11 - ls.a01 * ls.a01;
    y.x = (ls.b0 * ls.a11 - ls.b1 * ls.a01) / det;
    y.y = (ls.a00 * ls.b1 - ls.a01 * ls.b0) / det;
    return isfinite(y.x) && isfinite(y.y);
}

/// a + e * e with the square rounded before the sum, as the reference computes a distance: a
/// fused multiply-add changes a distance's last bits, and the scores amplify that (below).
__device__ __forceinline__ float addSquare(float acc, float e) {
    return __fadd_rn(acc, __fmul_rn(e, e));
}

/// The scoring step's per-point constants (embedsom.md step 2).
struct ScoreMoments {
    float mean = 0, sdinv = 0, nmax = 0;
    bool ok = false;  ///< false: degenerate (all distances equal, or k+1 duplicates)
};

/// The moments from scoreMoments' sums (of w_i = 1 / (i + 1), r_i w_i and r_i^2 w_i over the
/// list, in its order) and the last distance's root.
__device__ __forceinline__ ScoreMoments momentsFromSums(float sumw, float sumr, float sumr2,
                                                        float rLast, int topn, int topnn,
                                                        float boost) {
    ScoreMoments m;
    m.mean = __fdiv_rn(sumr, sumw);
    const float var = __fsub_rn(__fdiv_rn(sumr2, sumw), __fmul_rn(m.mean, m.mean));
    m.ok = var > 0.0f && (topn == topnn || rLast > 0.0f);
    m.sdinv = __fdiv_rn(boost, sqrtf(var));
    m.nmax = topn < topnn ? __fdiv_rn(10.0f, rLast) : 0.0f;
    return m;
}

/// The moments of sorted squared distances a[0..topnn) (any accessor), in the reference's order
/// and roundings (no fused multiply-add, sequential sums): var = E[r^2] - mean^2 cancels, and a
/// last-bit difference in it shows in every score once smoothing is negative (1e-3 of the
/// layout at smooth = -2.5). kMax > 0: the loop is unrolled to kMax with guards, so that
/// register arrays are only indexed by constants.
template <int kMax, class DistAt>
__device__ __forceinline__ ScoreMoments scoreMoments(DistAt distAt, int topn, int topnn,
                                                     float boost) {
    float sumw = 0, sumr = 0, sumr2 = 0, rLast = 0;
    auto accumulate = [&](int i) {
        const float r = sqrtf(distAt(i));
        const float w = __fdiv_rn(1.0f, float(i + 1));
        sumw = __fadd_rn(sumw, w);
        sumr = __fadd_rn(sumr, __fmul_rn(r, w));
        sumr2 = __fadd_rn(sumr2, __fmul_rn(__fmul_rn(r, r), w));
        rLast = r;
    };
    if constexpr (kMax > 0) {
#pragma unroll
        for (int i = 0; i < kMax; ++i)
            if (i < topnn) accumulate(i);
    } else {
        for (int i = 0; i < topnn; ++i) accumulate(i);
    }
    return momentsFromSums(sumw, sumr, sumr2, rLast, topn, topnn, boost);
}

/// e^x rounded to float from a double evaluation: the host's expf, nearly always to the bit
/// (CUDA's expf may be 2 units in the last place off, which ill-conditioned points amplify).
__device__ __forceinline__ float hostExp(float x) {
    return float(exp(double(x)));
}

/// The score of a neighbour at distance r (sqrt of its squared distance), in the reference's
/// roundings; normalise: topn < topnn. HOST_EXP: exponentials by hostExp (the rare reference
/// path) instead of expf.
template <bool HOST_EXP = false>
__device__ __forceinline__ float scoreOf(const ScoreMoments& m, float r, bool normalise) {
    auto exp = [](float x) { return HOST_EXP ? hostExp(x) : expf(x); };
    float s = exp(__fmul_rn(__fsub_rn(m.mean, r), m.sdinv));
    if (normalise) s = __fmul_rn(s, __fsub_rn(1.0f, exp(__fsub_rn(__fmul_rn(r, m.nmax), 10.0f))));
    return s;
}

/// Scores from sorted squared distances a[0..topnn) (any accessor); false when degenerate
/// (all distances equal, k+1 duplicates, or non-finite scores). kMax as scoreMoments'.
template <int kMax, class DistAt, class ScoreOut>
__device__ __forceinline__ bool computeScores(DistAt distAt, int topn, int topnn, float boost,
                                              ScoreOut scoreOut) {
    const ScoreMoments m = scoreMoments<kMax>(distAt, topn, topnn, boost);
    if (!m.ok) return false;
    bool ok = true, anyPositive = false;
    auto score = [&](int i) {
        const float s = scoreOf(m, sqrtf(distAt(i)), topn < topnn);
        ok = ok && isfinite(s);
        anyPositive = anyPositive || s > 0.0f;
        scoreOut(i, s);
    };
    if constexpr (kMax > 0) {
#pragma unroll
        for (int i = 0; i < kMax; ++i)
            if (i < topn) score(i);
    } else {
        for (int i = 0; i < topn; ++i) score(i);
    }
    return ok && anyPositive;
}

/// True when the 2x2 system is too ill-conditioned for the fast paths' roundings to agree with
/// the reference's (a00 a11 / det >= kReferenceConditioning): solveLikeReference places the point.
__device__ __forceinline__ bool illConditioned(const LeastSquares& ls) {
    const float det = ls.a00 * ls.a11 - ls.a01 * ls.a01;
    return !(det * kReferenceConditioning > ls.a00 * ls.a11);
}

/// The five terms (a00, a01, a11, b0, b1) that the pair of landmarks u, v adds to point x's 2x2
/// system in the reference's float arithmetic (D in the O(d) form; the exponential and the
/// power evaluated in double and rounded as the host's expf and powf are); false where the
/// reference leaves the pair out (equal landmarks, or one spot of the picture). scoreU is u's
/// score; scoreV() gives v's, asked only for a pair that counts. The one place of these
/// operations for solveLikeReference and the deferred cells' warp solve, which must agree bit
/// for bit.
template <class ScoreV>
__device__ __forceinline__ bool referencePairTerms(const float* x, const float* landmarks,
                                                   const float* low, int stride, int u, int v,
                                                   float scoreU, ScoreV scoreV, float adjust,
                                                   float (&t)[5]) {
    const float* lu = landmarks + size_t(u) * stride;
    const float* lv = landmarks + size_t(v) * stride;
    const float lux = low[2 * u], luy = low[2 * u + 1];
    float sqd = 0, dot = 0;
    for (int c = 0; c < stride; ++c) {  // padding adds exact zeros
        const float e = __fsub_rn(lv[c], lu[c]);
        sqd = addSquare(sqd, e);
        dot = __fadd_rn(dot, __fmul_rn(__fsub_rn(x[c], lu[c]), e));
    }
    if (sqd == 0.0f) return false;
    const float D = __fdiv_rn(dot, sqd);
    const float hx = __fsub_rn(low[2 * v], lux), hy = __fsub_rn(low[2 * v + 1], luy);
    const float hp = __fadd_rn(__fmul_rn(hx, hx), __fmul_rn(hy, hy));
    if (hp < 1e-10f) return false;
    const float q = __fsub_rn(D, 0.5f);
    const float s = __fmul_rn(
        __fmul_rn(__fmul_rn(scoreU, scoreV()), float(pow(double(1.0f + hp), double(-adjust)))),
        hostExp(__fmul_rn(-q, q)));
    const float sh = __fdiv_rn(s, hp);
    t[0] = __fmul_rn(__fmul_rn(sh, hx), hx);
    t[1] = __fmul_rn(__fmul_rn(sh, hx), hy);
    t[2] = __fmul_rn(__fmul_rn(sh, hy), hy);
    const float along = __fdiv_rn(__fadd_rn(__fmul_rn(hx, lux), __fmul_rn(hy, luy)), hp);
    const float f = __fmul_rn(s, __fadd_rn(D, along));
    t[3] = __fmul_rn(f, hx);
    t[4] = __fmul_rn(f, hy);
    return true;
}

/// Steps 2-4 of embedsom.md for the point x (stride floats) in the reference's own float
/// arithmetic and order, from its sorted list (distance i at dist[i * distStride], landmark
/// idx[i]); the CPU backend's solveLikeReference, step for step: scores again from the distances
/// (recomputed per pair: no list-sized array), D in the O(d) form, sums in float, Cramer's rule,
/// exponentials and powers evaluated in double and rounded as the host's expf and powf are.
/// For the rare ill-conditioned points; NaN when the reference form fails too. Plain arguments:
/// a reference to the kernel's ProjectionArgs would give every thread a local copy of them.
__device__ __noinline__ inline float2 solveLikeReference(const float* x, const float* landmarks,
                                                         const float* low, int stride, int topn,
                                                         int topnn, float boost, float adjust,
                                                         const float* dist, int distStride,
                                                         const int* idx) {
    const float2 failed = make_float2(NAN, NAN);
    const bool normalise = topn < topnn;
    const ScoreMoments m =
        scoreMoments<0>([&](int i) { return dist[i * distStride]; }, topn, topnn, boost);
    if (!m.ok) return failed;
    auto score = [&](int i) { return scoreOf<true>(m, sqrtf(dist[i * distStride]), normalise); };
    float a00 = 0, a01 = 0, a11 = 0, b0 = 0, b1 = 0;
    for (int i = 0; i < topn; ++i) {
        const int u = idx[i];
        const float gs = __fmul_rn(score(i), 1e-5f);
        a00 = __fadd_rn(a00, gs);
        a11 = __fadd_rn(a11, gs);
        b0 = __fadd_rn(b0, __fmul_rn(gs, low[2 * u]));
        b1 = __fadd_rn(b1, __fmul_rn(gs, low[2 * u + 1]));
    }
    for (int i = 0; i < topn; ++i) {
        const float si = score(i);
        for (int j = i + 1; j < topn; ++j) {
            float t[5];
            if (!referencePairTerms(
                    x, landmarks, low, stride, idx[i], idx[j], si, [&] { return score(j); }, adjust,
                    t))
                continue;
            a00 = __fadd_rn(a00, t[0]);
            a01 = __fadd_rn(a01, t[1]);
            a11 = __fadd_rn(a11, t[2]);
            b0 = __fadd_rn(b0, t[3]);
            b1 = __fadd_rn(b1, t[4]);
        }
    }
    const float det = __fsub_rn(__fmul_rn(a00, a11), __fmul_rn(a01, a01));
    const float2 y = make_float2(__fdiv_rn(__fsub_rn(__fmul_rn(b0, a11), __fmul_rn(b1, a01)), det),
                                 __fdiv_rn(__fsub_rn(__fmul_rn(a00, b1), __fmul_rn(a01, b0)), det));
    return isfinite(y.x) && isfinite(y.y) ? y : failed;
}

/// Replaces y, the fast paths' solution of point p, by solveLikeReference's when the system ls
/// is ill-conditioned and the reference form places the point.
__device__ __forceinline__ void referenceWhereIllConditioned(const ProjectionArgs& a, size_t p,
                                                             const LeastSquares& ls,
                                                             const float* dist, int distStride,
                                                             const int* idx, float2& y) {
    if (!illConditioned(ls)) return;
    const float2 r = solveLikeReference(a.points + p * a.stride, a.landmarks, a.low, a.stride,
                                        a.topn, a.topnn, a.boost, a.adjust, dist, distStride, idx);
    if (isfinite(r.x)) y = r;
}

/// Where the system ls is ill-conditioned: queues cell p (its list at a.knnIdx/a.knnDist) for
/// finishDeferredSolves while a.deferred has room, else replaces y inline as
/// referenceWhereIllConditioned does.
__device__ __forceinline__ void deferWhereIllConditioned(const ProjectionArgs& a, size_t p,
                                                         const LeastSquares& ls, float2& y) {
    if (!illConditioned(ls)) return;
    const unsigned long long slot =
        a.deferred ? atomicAdd(a.deferredCount, 1ull) : a.deferredCapacity;
    if (slot < a.deferredCapacity) {
        a.deferred[slot] = uint32_t(p);
        return;
    }
    referenceWhereIllConditioned(a, p, ls, a.knnDist + p * a.kOut, 1,
                                 reinterpret_cast<const int*>(a.knnIdx + p * a.kOut), y);
}

/// Where the formula cannot place a point: the mean of its neighbours' 2D positions weighted by
/// weightAt(i), or with equal weights when the weights sum to zero or are not finite (as the
/// CPU backend does). weighted = false: equal weights.
template <class IdxAt, class WeightAt>
__device__ __forceinline__ float2 neighbourMean(IdxAt idxAt, WeightAt weightAt, bool weighted,
                                                int topn, const float* low) {
    float sx = 0, sy = 0, sw = 0;
    if (weighted) {
        for (int i = 0; i < topn; ++i) {
            const uint32_t u = idxAt(i);
            const float w = weightAt(i);
            sx += w * low[2 * u];
            sy += w * low[2 * u + 1];
            sw += w;
        }
    }
    if (!(sw > 0.0f) || !isfinite(sx) || !isfinite(sy)) {
        sx = sy = sw = 0;
        for (int i = 0; i < topn; ++i) {
            const uint32_t u = idxAt(i);
            sx += low[2 * u];
            sy += low[2 * u + 1];
            sw += 1.0f;
        }
    }
    return make_float2(sx / sw, sy / sw);
}

/// Queues point p of a (an index into a.points) for placeNonFinite: a.counters[0] counts them,
/// a.nonFinite holds their indices in the whole set (a.first + p, a may be a chunk of it).
__device__ __forceinline__ void queueNonFinite(const ProjectionArgs& a, size_t p) {
    const unsigned long long slot = atomicAdd(a.counters, 1ull);
    a.nonFinite[slot] = uint32_t(a.first + p);
}

/// Loads a point coordinate, replacing NaN and infinity by 0 for the fast paths; `bad` records
/// that a value was replaced (such points are placed again by placeNonFinite).
__device__ __forceinline__ float finiteOrZero(float v, bool& bad) {
    const bool finite = isfinite(v);
    bad = bad || !finite;
    return finite ? v : 0.0f;
}

/// Larger of a value over the 32 lanes of a warp (all lanes active).
__device__ __forceinline__ int warpMax(int v) {
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/// Sum of a value over the 32 lanes of a warp (all lanes active).
__device__ __forceinline__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

}  // namespace sepal::cuda::detail
