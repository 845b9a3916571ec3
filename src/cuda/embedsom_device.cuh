#pragma once
// Device functions shared by the EmbedSOM kernels: scores, one landmark pair's contribution,
// the 2x2 solve and the fallback for points the formula cannot place (embedsom.md).

#include <cstdint>

#include "cuda/embedsom_kernels.h"

namespace sepal::cuda::detail {

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
    return powf(1.0f + hp, -adjust);
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

/// Scores from sorted squared distances a[0..topnn) (any accessor); false when degenerate
/// (all distances equal, k+1 duplicates, or non-finite scores). kMax > 0: loops unrolled to
/// kMax with guards, so that register arrays are only indexed by constants.
template <int kMax, class DistAt, class ScoreOut>
__device__ __forceinline__ bool computeScores(DistAt distAt, int topn, int topnn, float boost,
                                              ScoreOut scoreOut) {
    float sumw = 0, sumr = 0, sumr2 = 0, rLast = 0;
    auto accumulate = [&](int i) {
        const float r = sqrtf(distAt(i));
        const float w = 1.0f / float(i + 1);
        sumw += w;
        sumr += r * w;
        sumr2 += r * r * w;
        rLast = r;
    };
    if constexpr (kMax > 0) {
#pragma unroll
        for (int i = 0; i < kMax; ++i)
            if (i < topnn) accumulate(i);
    } else {
        for (int i = 0; i < topnn; ++i) accumulate(i);
    }
    const float mean = sumr / sumw;
    const float var = sumr2 / sumw - mean * mean;
    if (!(var > 0.0f) || (topn < topnn && !(rLast > 0.0f))) return false;
    const float sdinv = boost / sqrtf(var);
    const float nmax = topn < topnn ? 10.0f / rLast : 0.0f;
    bool ok = true, anyPositive = false;
    auto score = [&](int i) {
        const float r = sqrtf(distAt(i));
        float s = expf((mean - r) * sdinv);
        if (topn < topnn) s *= 1.0f - expf(r * nmax - 10.0f);
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
