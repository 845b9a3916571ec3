#include "core/pipeline/polish_epoch.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "core/common/simd_pairs.h"
#include "core/train/sampling.h"

namespace sepal {

namespace {

constexpr int kMostSamples = 8;  // random cells per cell and epoch, one vector of them

/// The random cells that cell i is pushed from in this epoch: the same draws on every path.
int drawSamples(const std::vector<uint32_t>& keep, size_t i, const PolishStep& step,
                uint32_t* out) {
    SplitMix rng(step.seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ULL) ^ (uint64_t(step.epoch) << 40));
    const int count = int(std::min<size_t>(step.negativeSamples, kMostSamples));
    // The high half of a 64 x 64-bit product: an index without a division.
    for (int s = 0; s < count; ++s)
        out[s] = keep[size_t((unsigned __int128)rng.next() * keep.size() >> 64)];
    return count;
}

float clip(float v) {
    return std::clamp(v, -4.0f, 4.0f);
}

/// One cell's move, one term at a time.
void moveCellPortable(const PolishGraph& graph, const std::vector<uint32_t>& keep, size_t i,
                      const float* y, float* next, const PolishStep& step) {
    const float a = step.a, b = step.b;
    float gx = 0, gy = 0;
    for (size_t r = 0; r < graph.k; ++r) {
        const size_t at = r * graph.stride + i;
        const uint32_t j = graph.nbr[at];
        const float dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
        const float d2 = dx * dx + dy * dy;
        if (!(d2 > 0)) continue;
        const float pb = std::pow(std::max(d2, 1e-30f), b);  // as the vector path raises d2
        const float c = -2.0f * a * b * pb / d2 / (1.0f + a * pb) * graph.weight[at];
        gx += clip(c * dx), gy += clip(c * dy);
    }
    // Repulsion: UMAP draws negativeSamples for each of the (on average `weights`) times an
    // epoch samples the cell's edges; each draw here stands for them all, damped by `repulsion`
    // (a polish keeps EmbedSOM's spacing rather than UMAP's).
    uint32_t sample[kMostSamples];
    const int count = drawSamples(keep, i, step, sample);
    float rx = 0, ry = 0;
    for (int s = 0; s < count; ++s) {
        const uint32_t j = sample[s];
        const float dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
        const float d2 = dx * dx + dy * dy;
        if (!(d2 > 0)) continue;
        const float c = 2.0f * b / ((0.001f + d2) * (1.0f + a * std::pow(std::max(d2, 1e-30f), b)));
        rx += clip(c * dx), ry += clip(c * dy);
    }
    const float push = step.repulsion * graph.weights[i];
    next[2 * i] = y[2 * i] + step.rate * (gx + push * rx);
    next[2 * i + 1] = y[2 * i + 1] + step.rate * (gy + push * ry);
}

/// x^b of eight positive normal floats as exp2(b log2 x), with short series: log2 of the
/// mantissa taken to [sqrt(1/2), sqrt(2)) in t = (m - 1) / (m + 1) to t^5, 2^f on |f| <= 1/2 to
/// f^5. Relative error about 3e-6: plenty for a gradient step, and a third of the C library's
/// work.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 pow8(__m256 x, __m256 b) {
    const __m256i bits = _mm256_castps_si256(x);
    __m256i e = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127));
    __m256 m = _mm256_castsi256_ps(_mm256_or_si256(
        _mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFF)), _mm256_set1_epi32(0x3F800000)));
    const __m256 high = _mm256_cmp_ps(m, _mm256_set1_ps(1.41421356f), _CMP_GT_OQ);
    m = _mm256_blendv_ps(m, _mm256_mul_ps(m, _mm256_set1_ps(0.5f)), high);
    e = _mm256_sub_epi32(e, _mm256_castps_si256(high));  // high lanes are -1: one more
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 t = _mm256_div_ps(_mm256_sub_ps(m, one), _mm256_add_ps(m, one));
    const __m256 t2 = _mm256_mul_ps(t, t);
    // 2 / ln 2 (t + t^3 / 3 + t^5 / 5)
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0.577078016f), t2, _mm256_set1_ps(0.961796694f));
    p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(2.88539008f));
    __m256 z = _mm256_mul_ps(b, _mm256_fmadd_ps(p, t, _mm256_cvtepi32_ps(e)));
    z = _mm256_max_ps(_mm256_min_ps(z, _mm256_set1_ps(125.0f)), _mm256_set1_ps(-125.0f));
    const __m256 n = _mm256_round_ps(z, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 f = _mm256_sub_ps(z, n);
    __m256 q = _mm256_set1_ps(1.33335581e-3f);
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(9.61812911e-3f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(5.55041087e-2f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(2.40226507e-1f));
    q = _mm256_fmadd_ps(q, f, _mm256_set1_ps(6.93147181e-1f));
    q = _mm256_fmadd_ps(q, f, one);
    // q 2^n: n added to the exponent field (q lies in [0.7, 1.42], n in [-125, 125]).
    return _mm256_castsi256_ps(
        _mm256_add_epi32(_mm256_castps_si256(q), _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23)));
}

__attribute__((target("avx2,fma"), always_inline)) inline __m256 clip8(__m256 v) {
    return _mm256_max_ps(_mm256_min_ps(v, _mm256_set1_ps(4.0f)), _mm256_set1_ps(-4.0f));
}

/// The terms of eight other cells j[0..7] on the eight lanes' cells at (xi, yi): the offsets (dx,
/// dy), d2, d2^b, and whether they count (d2 > 0; tiny d2 are raised to a normal float first).
struct Terms8 {
    __m256 dx, dy, d2, pb, counts;
};

__attribute__((target("avx2,fma"), always_inline)) inline Terms8 terms8(const float* y,
                                                                        const uint32_t* j,
                                                                        __m256 xi, __m256 yi,
                                                                        __m256 b) {
    __m256 xj, yj;
    loadPairs8(y, j, xj, yj);
    Terms8 t;
    t.dx = _mm256_sub_ps(xi, xj);
    t.dy = _mm256_sub_ps(yi, yj);
    t.d2 = _mm256_fmadd_ps(t.dx, t.dx, _mm256_mul_ps(t.dy, t.dy));
    t.counts = _mm256_cmp_ps(t.d2, _mm256_setzero_ps(), _CMP_GT_OQ);
    const __m256 safe = _mm256_max_ps(t.d2, _mm256_set1_ps(1e-30f));
    t.pb = pow8(safe, b);
    return t;
}

/// The moves of cells i0 .. i0 + 7, a lane each (padding cells past n move nowhere).
__attribute__((target("avx2,fma"))) void moveBlockAvx2(const PolishGraph& graph,
                                                       const std::vector<uint8_t>& usable,
                                                       const std::vector<uint32_t>& keep, size_t i0,
                                                       const float* y, float* next,
                                                       const PolishStep& step) {
    const int count = int(std::min<size_t>(step.negativeSamples, kMostSamples));
    uint32_t sample[kMostSamples][8];
    for (int l = 0; l < 8; ++l) {
        const size_t i = i0 + size_t(l);
        uint32_t drawn[kMostSamples];
        const int got = usable[i] ? drawSamples(keep, i, step, drawn) : 0;
        // A cell that does not move draws itself: d2 = 0 counts nothing.
        for (int s = 0; s < count; ++s) sample[s][l] = s < got ? drawn[s] : uint32_t(i);
    }
    uint32_t cells[8];
    for (int l = 0; l < 8; ++l) cells[l] = uint32_t(i0) + uint32_t(l);
    __m256 xi, yi;
    loadPairs8(y, cells, xi, yi);
    const __m256 b = _mm256_set1_ps(step.b), a = _mm256_set1_ps(step.a);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    const __m256 attract = _mm256_set1_ps(-2.0f * step.a * step.b);
    __m256 gx = zero, gy = zero;
    for (size_t r = 0; r < graph.k; ++r) {
        const size_t at = r * graph.stride + i0;
        const Terms8 t = terms8(y, &graph.nbr[at], xi, yi, b);
        // -2ab d2^b / d2 / (1 + a d2^b) w
        __m256 c = _mm256_div_ps(_mm256_mul_ps(attract, t.pb),
                                 _mm256_mul_ps(t.d2, _mm256_fmadd_ps(a, t.pb, one)));
        c = _mm256_and_ps(_mm256_mul_ps(c, _mm256_loadu_ps(&graph.weight[at])), t.counts);
        gx = _mm256_add_ps(gx, _mm256_and_ps(clip8(_mm256_mul_ps(c, t.dx)), t.counts));
        gy = _mm256_add_ps(gy, _mm256_and_ps(clip8(_mm256_mul_ps(c, t.dy)), t.counts));
    }
    __m256 rx = zero, ry = zero;
    const __m256 twoB = _mm256_set1_ps(2.0f * step.b), soft = _mm256_set1_ps(0.001f);
    for (int s = 0; s < count; ++s) {
        const Terms8 t = terms8(y, sample[s], xi, yi, b);
        // 2b / ((0.001 + d2) (1 + a d2^b))
        const __m256 c = _mm256_div_ps(
            twoB, _mm256_mul_ps(_mm256_add_ps(soft, t.d2), _mm256_fmadd_ps(a, t.pb, one)));
        rx = _mm256_add_ps(rx, _mm256_and_ps(clip8(_mm256_mul_ps(c, t.dx)), t.counts));
        ry = _mm256_add_ps(ry, _mm256_and_ps(clip8(_mm256_mul_ps(c, t.dy)), t.counts));
    }
    const __m256 push =
        _mm256_mul_ps(_mm256_set1_ps(step.repulsion), _mm256_loadu_ps(&graph.weights[i0]));
    const __m256 rate = _mm256_set1_ps(step.rate);
    __m256 nx = _mm256_add_ps(xi, _mm256_mul_ps(rate, _mm256_add_ps(gx, _mm256_mul_ps(push, rx))));
    __m256 ny = _mm256_add_ps(yi, _mm256_mul_ps(rate, _mm256_add_ps(gy, _mm256_mul_ps(push, ry))));
    // Unusable cells stay.
    const __m256i flags =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(usable.data() + i0)));
    const __m256 moves = _mm256_castsi256_ps(_mm256_cmpgt_epi32(flags, _mm256_setzero_si256()));
    nx = _mm256_blendv_ps(xi, nx, moves);
    ny = _mm256_blendv_ps(yi, ny, moves);
    // Back to x0 y0 x1 y1 ...
    const __m256 lo = _mm256_unpacklo_ps(nx, ny), hi = _mm256_unpackhi_ps(nx, ny);
    _mm256_storeu_ps(next + 2 * i0, _mm256_permute2f128_ps(lo, hi, 0x20));
    _mm256_storeu_ps(next + 2 * i0 + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
}

bool haveAvx2() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

}  // namespace

void polishEpoch(const PolishGraph& graph, const std::vector<uint8_t>& usable,
                 const std::vector<uint32_t>& keep, const float* y, float* next,
                 const PolishStep& step, PolishPath path) {
    static const bool avx2 = haveAvx2();
    if (path == PolishPath::Fastest && avx2) {
#pragma omp parallel for schedule(static)
        for (long long bb = 0; bb < static_cast<long long>(graph.stride / 8); ++bb)
            moveBlockAvx2(graph, usable, keep, size_t(bb) * 8, y, next, step);
        return;
    }
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < static_cast<long long>(graph.stride); ++ii) {
        const size_t i = size_t(ii);
        if (usable[i])
            moveCellPortable(graph, keep, i, y, next, step);
        else
            next[2 * i] = y[2 * i], next[2 * i + 1] = y[2 * i + 1];
    }
}

}  // namespace sepal
