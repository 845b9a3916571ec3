#include "core/embedsom/fast_point.h"

#include <immintrin.h>

#include <cmath>

#include "core/common/simd_pairs.h"
#include "core/embedsom/fallback.h"
#include "core/embedsom/reference_solve.h"
#include "core/embedsom/simd_exp.h"

namespace sepal {

namespace {

// The pair loop adds to acc = (a00, a01, a11, b0, b1), the sums kept in double and each term in
// the reference's order of operations (no FMA). It returns true when a pair's O(1) form of D
// loses digits (a_j c_uv > kExactRatio): the point is then solved the reference's way.
using PairLoop = bool (*)(const float*, const uint32_t*, int, const PairConstants&,
                          const FastPointScratch&, double*);

// One pair at a time.
bool pairLoopPortable(const float* a, const uint32_t* idx, int topn, const PairConstants& pairs,
                      const FastPointScratch& scratch, double* acc) {
    const float* score = scratch.score.data();
    const float* lx = scratch.lx.data();
    const float* ly = scratch.ly.data();
    double a00 = 0.0, a01 = 0.0, a11 = 0.0, b0 = 0.0, b1 = 0.0;
    bool inexact = false;
    for (int i = 0; i < topn; ++i) {
        const float* cf = pairs.row(idx[i]);
        const float ai = a[i], si = score[i], ux = lx[i], uy = ly[i];
        for (int j = i + 1; j < topn; ++j) {
            const uint32_t v = idx[j];
            // D - 0.5 = (a_u - a_v) c_uv; skipped pairs have c = 0 and weight 0: they add 0.
            const float t = (ai - a[j]) * cf[2 * v];
            // The list is sorted: a[j] is the pair's larger distance.
            inexact |= a[j] * cf[2 * v] > kExactRatio;
            const float s = si * score[j] * cf[2 * v + 1] * std::exp(-(t * t));
            const float hx = lx[j] - ux, hy = ly[j] - uy;
            const float hpRaw = hx * hx + hy * hy;
            const float hp = hpRaw < 1e-10f ? 1.0f : hpRaw;
            const float sh = s / hp;
            a00 += sh * hx * hx;
            a01 += sh * hx * hy;
            a11 += sh * hy * hy;
            const float f = s * ((0.5f + t) + (hx * ux + hy * uy) / hp);
            b0 += f * hx;
            b1 += f * hy;
        }
    }
    acc[0] += a00, acc[1] += a01, acc[2] += a11, acc[3] += b0, acc[4] += b1;
    return inexact;
}

// Adds eight float terms to four double lanes.
__attribute__((target("avx2,fma"), always_inline)) inline __m256d add8(__m256d acc, __m256 v) {
    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    return _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}

__attribute__((target("avx2,fma"))) double sum4(__m256d v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

// Eight pairs (i, j..j+7) at a time; the per-pair constants are loaded by landmark index.
// The buffers are padded to a multiple of 8 with score 0, which makes padding pairs add 0.
__attribute__((target("avx2,fma"))) bool pairLoopAvx2(const float* a, const uint32_t* idx, int topn,
                                                      const PairConstants& pairs,
                                                      const FastPointScratch& scratch,
                                                      double* acc) {
    const float* score = scratch.score.data();
    const float* lx = scratch.lx.data();
    const float* ly = scratch.ly.data();
    const float* pa = scratch.a.data();
    const uint32_t* pidx = scratch.idx.data();
    __m256d a00 = _mm256_setzero_pd(), a01 = a00, a11 = a00, b0 = a00, b1 = a00;
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    const __m256 tiny = _mm256_set1_ps(1e-10f), sign = _mm256_set1_ps(-0.0f);
    const __m256 ratio = _mm256_set1_ps(kExactRatio);
    __m256 inexact = _mm256_setzero_ps();
    for (int i = 0; i + 1 < topn; ++i) {
        const float* cf = pairs.row(idx[i]);
        const __m256 ai = _mm256_set1_ps(a[i]), si = _mm256_set1_ps(score[i]);
        const __m256 ux = _mm256_set1_ps(lx[i]), uy = _mm256_set1_ps(ly[i]);
        for (int j = i + 1; j < topn; j += 8) {
            __m256 c, f;
            loadPairs8(cf, pidx + j, c, f);
            const __m256 aj = _mm256_loadu_ps(pa + j);
            const __m256 t = _mm256_mul_ps(_mm256_sub_ps(ai, aj), c);
            inexact = _mm256_or_ps(inexact, _mm256_cmp_ps(_mm256_mul_ps(aj, c), ratio, _CMP_GT_OQ));
            const __m256 e = exp8(_mm256_xor_ps(_mm256_mul_ps(t, t), sign));
            const __m256 s =
                _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(si, _mm256_loadu_ps(score + j)), f), e);
            const __m256 hx = _mm256_sub_ps(_mm256_loadu_ps(lx + j), ux);
            const __m256 hy = _mm256_sub_ps(_mm256_loadu_ps(ly + j), uy);
            __m256 hp = _mm256_add_ps(_mm256_mul_ps(hx, hx), _mm256_mul_ps(hy, hy));
            hp = _mm256_blendv_ps(hp, one, _mm256_cmp_ps(hp, tiny, _CMP_LT_OQ));
            const __m256 sh = _mm256_div_ps(s, hp);
            a00 = add8(a00, _mm256_mul_ps(_mm256_mul_ps(sh, hx), hx));
            a01 = add8(a01, _mm256_mul_ps(_mm256_mul_ps(sh, hx), hy));
            a11 = add8(a11, _mm256_mul_ps(_mm256_mul_ps(sh, hy), hy));
            const __m256 dot = _mm256_add_ps(_mm256_mul_ps(hx, ux), _mm256_mul_ps(hy, uy));
            const __m256 w =
                _mm256_mul_ps(s, _mm256_add_ps(_mm256_add_ps(half, t), _mm256_div_ps(dot, hp)));
            b0 = add8(b0, _mm256_mul_ps(w, hx));
            b1 = add8(b1, _mm256_mul_ps(w, hy));
        }
    }
    acc[0] += sum4(a00), acc[1] += sum4(a01), acc[2] += sum4(a11);
    acc[3] += sum4(b0), acc[4] += sum4(b1);
    return _mm256_movemask_ps(inexact) != 0;
}

PairLoop pickPairLoop() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return pairLoopAvx2;
    return pairLoopPortable;
}

}  // namespace

bool projectFastPoint(const float* x, const LandmarkModel& model, const float* a,
                      const uint32_t* idx, const ScoreSetup& setup, const PairConstants& pairs,
                      float adjust, FastPointScratch& scratch, float* y) {
    const float* low = model.low.data();
    static const PairLoop pairLoop = pickPairLoop();
    const int topn = setup.topn;
    float* score = scratch.score.data();
    if (!computeScores(a, setup, score)) {
        neighbourMean(idx, nullptr, topn, low, y);
        return false;
    }
    float* lx = scratch.lx.data();
    float* ly = scratch.ly.data();
    double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < topn; ++i) {
        lx[i] = low[2 * idx[i]];
        ly[i] = low[2 * idx[i] + 1];
        scratch.a[i] = a[i];
        scratch.idx[i] = idx[i];
        // Gravity towards each neighbour keeps the system solvable.
        const float gs = score[i] * 1e-5f;
        acc[0] += gs;
        acc[2] += gs;
        acc[3] += gs * lx[i];
        acc[4] += gs * ly[i];
    }
    const bool inexact = pairLoop(a, idx, topn, pairs, scratch, acc);
    const double det = acc[0] * acc[2] - acc[1] * acc[1];
    // An ill-conditioned system turns the differences between these roundings and the
    // reference's into visible moves: such points (and those whose O(1) form of D lost digits)
    // are solved in the reference's arithmetic. A few percent of points at most, with sharp
    // negative smoothing; next to none at the defaults.
    if (inexact || !(det * kReferenceConditioning > acc[0] * acc[2])) {
        if (solveLikeReference(x, model, idx, score, topn, adjust, y)) return true;
    } else {
        y[0] = static_cast<float>((acc[3] * acc[2] - acc[4] * acc[1]) / det);
        y[1] = static_cast<float>((acc[0] * acc[4] - acc[1] * acc[3]) / det);
        if (std::isfinite(y[0]) && std::isfinite(y[1])) return true;
    }
    neighbourMean(idx, score, topn, low, y);
    return false;
}

}  // namespace sepal
