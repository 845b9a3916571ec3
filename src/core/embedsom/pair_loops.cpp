#include "core/embedsom/pair_loops.h"

#include <immintrin.h>

#include <array>
#include <cmath>
#include <vector>

#include "core/common/simd_pairs.h"
#include "core/embedsom/exactness.h"
#include "core/embedsom/simd_exp.h"

// GCC 12's AVX-512 gathers, extracts and permutes start from _mm512_undefined_*(), which it then
// reports as maybe uninitialised wherever they are inlined; the values are all written.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace sepal {

namespace {

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
            const uint32_t v = pairs.slot(idx[j]);
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

// The four lanes' sum.
__attribute__((target("avx2,fma"))) double sum4(__m256d v) {
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

// Eight pairs (i, j..j+7) at a time; the per-pair constants are loaded by slot (scratch.idx).
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

// Every pair (i < j) of topn neighbours in one list, padded with (0, 0) to a multiple of 16.
struct PairList {
    std::vector<int32_t> i, j;
    int count = 0;  // pairs before the padding
};

// The lists for topn = 0..32, made once.
const PairList& pairListFor(int topn) {
    static const std::array<PairList, 33> lists = [] {
        std::array<PairList, 33> made;
        for (int n = 0; n <= 32; ++n) {
            PairList& l = made[n];
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j < n; ++j) l.i.push_back(i), l.j.push_back(j);
            l.count = int(l.i.size());
            l.i.resize((l.i.size() + 15) / 16 * 16, 0);
            l.j.resize(l.i.size(), 0);
        }
        return made;
    }();
    return lists[topn];
}

// Adds the lanes of v that `valid` keeps to eight double lanes.
__attribute__((target("avx512f"), always_inline)) inline __m512d add16(__m512d acc, __m512 v,
                                                                       __mmask16 valid) {
    const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    acc = _mm512_add_pd(acc, _mm512_maskz_cvtps_pd(__mmask8(valid), _mm512_castps512_ps256(v)));
    return _mm512_add_pd(acc, _mm512_maskz_cvtps_pd(__mmask8(valid >> 8), high));
}

// Neighbour i's value of each lane, from the two registers of neighbours 0-15 and 16-31.
__attribute__((target("avx512f"), always_inline)) inline __m512 pick(__m512 low, __m512 high,
                                                                     __m512i i) {
    return _mm512_permutex2var_ps(low, i, high);
}

// Sixteen pairs of the flattened list at a time: each lane gathers its pair's neighbour values
// from registers and its (c, f) from the table, so no lane idles at the ends of short rows
// (120 pairs of k = 16 take 8 steps; the AVX2 loop's rows of 15, 14, ..., 1 take 22 of 8).
__attribute__((target("avx512f"))) bool pairLoopAvx512(const float* a, const uint32_t* idx,
                                                       int topn, const PairConstants& pairs,
                                                       const FastPointScratch& scratch,
                                                       double* acc) {
    // The table's index slot(u) g + slot(v) stays within int32 up to 46,340 landmarks (the table
    // stops at kMaxPairTableLandmarks).
    if (topn > 32 || pairs.landmarks() > 46340)
        return pairLoopAvx2(a, idx, topn, pairs, scratch, acc);
    const PairList& list = pairListFor(topn);
    // Neighbours 0-15 and 16-31 of each value (the buffers hold at least 32).
    const __m512 aLow = _mm512_loadu_ps(scratch.a.data()),
                 aHigh = _mm512_loadu_ps(scratch.a.data() + 16);
    const __m512 sLow = _mm512_loadu_ps(scratch.score.data());
    const __m512 sHigh = _mm512_loadu_ps(scratch.score.data() + 16);
    const __m512 xLow = _mm512_loadu_ps(scratch.lx.data()),
                 xHigh = _mm512_loadu_ps(scratch.lx.data() + 16);
    const __m512 yLow = _mm512_loadu_ps(scratch.ly.data()),
                 yHigh = _mm512_loadu_ps(scratch.ly.data() + 16);
    const __m512i uLow = _mm512_loadu_si512(scratch.idx.data());
    const __m512i uHigh = _mm512_loadu_si512(scratch.idx.data() + 16);
    const __m512i g = _mm512_set1_epi32(int(pairs.landmarks()));
    const float* table = pairs.table();
    // (c, f) pairs of lanes 0-7 and 8-15 as 16 floats each: c from the even ones, f the odd.
    const __m512i evens =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f);
    const __m512 tiny = _mm512_set1_ps(1e-10f), ratio = _mm512_set1_ps(kExactRatio);
    const __m512i sign = _mm512_set1_epi32(int(0x80000000u));
    __m512d a00 = _mm512_setzero_pd(), a01 = a00, a11 = a00, b0 = a00, b1 = a00;
    __mmask16 inexact = 0;
    for (int p = 0; p < list.count; p += 16) {
        const __mmask16 valid =
            list.count - p >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (list.count - p)) - 1);
        const __m512i vi = _mm512_loadu_si512(list.i.data() + p);
        const __m512i vj = _mm512_loadu_si512(list.j.data() + p);
        const __m512 ai = pick(aLow, aHigh, vi), aj = pick(aLow, aHigh, vj);
        const __m512 si = pick(sLow, sHigh, vi), sj = pick(sLow, sHigh, vj);
        const __m512 ux = pick(xLow, xHigh, vi), uy = pick(yLow, yHigh, vi);
        const __m512i u = _mm512_permutex2var_epi32(uLow, vi, uHigh);
        const __m512i v = _mm512_permutex2var_epi32(uLow, vj, uHigh);
        const __m512i at = _mm512_add_epi32(_mm512_mullo_epi32(u, g), v);
        const __m512 cf0 =
            _mm512_castsi512_ps(_mm512_i32gather_epi64(_mm512_castsi512_si256(at), table, 8));
        const __m512 cf1 =
            _mm512_castsi512_ps(_mm512_i32gather_epi64(_mm512_extracti64x4_epi64(at, 1), table, 8));
        const __m512 c = _mm512_permutex2var_ps(cf0, evens, cf1);
        const __m512 f = _mm512_permutex2var_ps(cf0, odds, cf1);
        // The same operations in the same order as the AVX2 and portable loops, lane by lane.
        const __m512 t = _mm512_mul_ps(_mm512_sub_ps(ai, aj), c);
        inexact |= _mm512_mask_cmp_ps_mask(valid, _mm512_mul_ps(aj, c), ratio, _CMP_GT_OQ);
        const __m512 tt = _mm512_mul_ps(t, t);
        const __m512 e =
            exp16(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(tt), sign)));
        const __m512 s = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(si, sj), f), e);
        const __m512 hx = _mm512_sub_ps(pick(xLow, xHigh, vj), ux);
        const __m512 hy = _mm512_sub_ps(pick(yLow, yHigh, vj), uy);
        __m512 hp = _mm512_add_ps(_mm512_mul_ps(hx, hx), _mm512_mul_ps(hy, hy));
        hp = _mm512_mask_mov_ps(hp, _mm512_cmp_ps_mask(hp, tiny, _CMP_LT_OQ), one);
        const __m512 sh = _mm512_div_ps(s, hp);
        a00 = add16(a00, _mm512_mul_ps(_mm512_mul_ps(sh, hx), hx), valid);
        a01 = add16(a01, _mm512_mul_ps(_mm512_mul_ps(sh, hx), hy), valid);
        a11 = add16(a11, _mm512_mul_ps(_mm512_mul_ps(sh, hy), hy), valid);
        const __m512 dot = _mm512_add_ps(_mm512_mul_ps(hx, ux), _mm512_mul_ps(hy, uy));
        const __m512 w =
            _mm512_mul_ps(s, _mm512_add_ps(_mm512_add_ps(half, t), _mm512_div_ps(dot, hp)));
        b0 = add16(b0, _mm512_mul_ps(w, hx), valid);
        b1 = add16(b1, _mm512_mul_ps(w, hy), valid);
    }
    acc[0] += _mm512_reduce_add_pd(a00), acc[1] += _mm512_reduce_add_pd(a01);
    acc[2] += _mm512_reduce_add_pd(a11);
    acc[3] += _mm512_reduce_add_pd(b0), acc[4] += _mm512_reduce_add_pd(b1);
    return inexact != 0;
}

}  // namespace

bool pairKernelAvailable(PairKernel kernel) {
    __builtin_cpu_init();
    switch (kernel) {
        case PairKernel::Portable:
            return true;
        case PairKernel::Avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case PairKernel::Avx512:
            return __builtin_cpu_supports("avx512f") && pairKernelAvailable(PairKernel::Avx2);
    }
    return false;
}

PairKernel fastestPairKernel() {
    static const PairKernel fastest = pairKernelAvailable(PairKernel::Avx512) ? PairKernel::Avx512
                                      : pairKernelAvailable(PairKernel::Avx2)
                                          ? PairKernel::Avx2
                                          : PairKernel::Portable;
    return fastest;
}

bool pairSums(PairKernel kernel, const float* a, const uint32_t* idx, int topn,
              const PairConstants& pairs, const FastPointScratch& scratch, double* acc) {
    switch (kernel) {
        case PairKernel::Avx512:
            return pairLoopAvx512(a, idx, topn, pairs, scratch, acc);
        case PairKernel::Avx2:
            return pairLoopAvx2(a, idx, topn, pairs, scratch, acc);
        case PairKernel::Portable:
            break;
    }
    return pairLoopPortable(a, idx, topn, pairs, scratch, acc);
}

}  // namespace sepal
