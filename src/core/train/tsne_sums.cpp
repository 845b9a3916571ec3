#include "core/train/tsne_sums.h"

#include <immintrin.h>

#include "core/common/lane_sums.h"

namespace sepal {

namespace {

constexpr int kLanes = 8;

/// Per lane, the five running sums: [quantity * kLanes + lane].
struct LaneSums {
    float v[5 * kLanes] = {};
};

/// Adds landmark j's terms to its lane, as every lane (and the AVX2 pass) does.
inline void addTerms(LaneSums& s, size_t j, float x, float y, float xj, float yj, float pj) {
    const float dx = x - xj, dy = y - yj;
    const float w = 1.0f / (1.0f + dx * dx + dy * dy);
    const float pw = pj * w, ww = w * w;
    const size_t lane = j % kLanes;
    s.v[0 * kLanes + lane] += pw * dx;
    s.v[1 * kLanes + lane] += pw * dy;
    s.v[2 * kLanes + lane] += ww * dx;
    s.v[3 * kLanes + lane] += ww * dy;
    s.v[4 * kLanes + lane] += w;
}

TsneRowSums finish(const LaneSums& s) {
    return TsneRowSums{sumEightLanes(s.v), sumEightLanes(s.v + kLanes),
                       sumEightLanes(s.v + 2 * kLanes), sumEightLanes(s.v + 3 * kLanes),
                       sumEightLanes(s.v + 4 * kLanes)};
}

TsneRowSums rowSumsPortable(const float* xs, const float* ys, const float* p, size_t g, float x,
                            float y) {
    LaneSums s;
    for (size_t j = 0; j < g; ++j) addTerms(s, j, x, y, xs[j], ys[j], p[j]);
    return finish(s);
}

// Multiplies and adds apart (no fused multiply-add): the portable pass's roundings.
__attribute__((target("avx2"))) TsneRowSums rowSumsAvx2(const float* xs, const float* ys,
                                                        const float* p, size_t g, float x,
                                                        float y) {
    const __m256 vx = _mm256_set1_ps(x), vy = _mm256_set1_ps(y), one = _mm256_set1_ps(1.0f);
    __m256 ax = _mm256_setzero_ps(), ay = ax, rx = ax, ry = ax, z = ax;
    size_t j = 0;
    for (; j + kLanes <= g; j += kLanes) {
        const __m256 dx = _mm256_sub_ps(vx, _mm256_loadu_ps(xs + j));
        const __m256 dy = _mm256_sub_ps(vy, _mm256_loadu_ps(ys + j));
        const __m256 d2 =
            _mm256_add_ps(_mm256_add_ps(one, _mm256_mul_ps(dx, dx)), _mm256_mul_ps(dy, dy));
        const __m256 w = _mm256_div_ps(one, d2);
        const __m256 pw = _mm256_mul_ps(_mm256_loadu_ps(p + j), w), ww = _mm256_mul_ps(w, w);
        ax = _mm256_add_ps(ax, _mm256_mul_ps(pw, dx));
        ay = _mm256_add_ps(ay, _mm256_mul_ps(pw, dy));
        rx = _mm256_add_ps(rx, _mm256_mul_ps(ww, dx));
        ry = _mm256_add_ps(ry, _mm256_mul_ps(ww, dy));
        z = _mm256_add_ps(z, w);
    }
    if (j == g) {
        // sumEightLanes' order in registers: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
        // Reading lanes back from memory right after the stores stalled every row.
        const __m256 pairs = _mm256_hadd_ps(_mm256_hadd_ps(ax, ay), _mm256_hadd_ps(rx, ry));
        const __m128 four =
            _mm_add_ps(_mm256_castps256_ps128(pairs), _mm256_extractf128_ps(pairs, 1));
        const __m256 zz = _mm256_hadd_ps(_mm256_hadd_ps(z, z), _mm256_hadd_ps(z, z));
        const __m128 zsum = _mm_add_ps(_mm256_castps256_ps128(zz), _mm256_extractf128_ps(zz, 1));
        alignas(16) float out[4];
        _mm_store_ps(out, four);
        return TsneRowSums{out[0], out[1], out[2], out[3], _mm_cvtss_f32(zsum)};
    }
    LaneSums s;
    _mm256_storeu_ps(s.v + 0 * kLanes, ax);
    _mm256_storeu_ps(s.v + 1 * kLanes, ay);
    _mm256_storeu_ps(s.v + 2 * kLanes, rx);
    _mm256_storeu_ps(s.v + 3 * kLanes, ry);
    _mm256_storeu_ps(s.v + 4 * kLanes, z);
    for (; j < g; ++j) addTerms(s, j, x, y, xs[j], ys[j], p[j]);
    return finish(s);
}

using RowSumsFn = TsneRowSums (*)(const float*, const float*, const float*, size_t, float, float);

RowSumsFn pickRowSums() {
    return __builtin_cpu_supports("avx2") ? rowSumsAvx2 : rowSumsPortable;
}

}  // namespace

TsneRowSums tsneRowSums(const float* xs, const float* ys, const float* p, size_t g, float x,
                        float y) {
    static const RowSumsFn fn = pickRowSums();
    return fn(xs, ys, p, g, x, y);
}

TsneRowSums tsneRowSumsPortable(const float* xs, const float* ys, const float* p, size_t g, float x,
                                float y) {
    return rowSumsPortable(xs, ys, p, g, x, y);
}

}  // namespace sepal
