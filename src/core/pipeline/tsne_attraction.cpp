#include "core/pipeline/tsne_attraction.h"

#include <immintrin.h>

#include <atomic>

#include "core/common/lane_sums.h"
#include "core/common/simd_pairs.h"

namespace sepal {

namespace {

std::atomic<bool> attractionAvx2Allowed{true};

bool attractionHasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

// One lane's step, as the vector path computes each of its eight lanes (no fused products:
// core is built with -ffp-contract=off).
inline void addEdge(float xi, float yi, float xj, float yj, float v, float& ax, float& ay) {
    const float dx = xi - xj, dy = yi - yj;
    const float w = v / ((1.0f + dx * dx) + dy * dy);
    ax += w * dx;
    ay += w * dy;
}

void attractionPortable(const float* pos, const uint32_t* column, const float* value, size_t first,
                        size_t last, uint32_t c, float& ax, float& ay) {
    const float xi = pos[2 * size_t(c)], yi = pos[2 * size_t(c) + 1];
    float lx[8] = {}, ly[8] = {};
    for (size_t e0 = first; e0 < last; e0 += 8)
        for (size_t l = 0; l < 8; ++l) {
            // Past the row's end a lane takes the cell itself with weight 0 (adds +0).
            const bool in = e0 + l < last;
            const uint32_t j = in ? column[e0 + l] : c;
            addEdge(xi, yi, pos[2 * size_t(j)], pos[2 * size_t(j) + 1], in ? value[e0 + l] : 0.0f,
                    lx[l], ly[l]);
        }
    ax = sumEightLanes(lx);
    ay = sumEightLanes(ly);
}

// Eight edges (cols, vals) into the lanes' sums (sx, sy): addEdge in each lane.
__attribute__((target("avx2"), always_inline)) inline void attractionStep8(const float* pos,
                                                                           const uint32_t* cols,
                                                                           const float* vals,
                                                                           __m256 xi, __m256 yi,
                                                                           __m256& sx, __m256& sy) {
    __m256 xj, yj;
    loadPairs8(pos, cols, xj, yj);
    const __m256 dx = _mm256_sub_ps(xi, xj), dy = _mm256_sub_ps(yi, yj);
    const __m256 q = _mm256_add_ps(_mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(dx, dx)),
                                   _mm256_mul_ps(dy, dy));
    const __m256 w = _mm256_div_ps(_mm256_loadu_ps(vals), q);
    sx = _mm256_add_ps(sx, _mm256_mul_ps(w, dx));
    sy = _mm256_add_ps(sy, _mm256_mul_ps(w, dy));
}

__attribute__((target("avx2"))) void attractionAvx2(const float* pos, const uint32_t* column,
                                                    const float* value, size_t first, size_t last,
                                                    uint32_t c, float& ax, float& ay) {
    const __m256 xi = _mm256_set1_ps(pos[2 * size_t(c)]);
    const __m256 yi = _mm256_set1_ps(pos[2 * size_t(c) + 1]);
    __m256 sx = _mm256_setzero_ps(), sy = _mm256_setzero_ps();
    size_t e = first;
    for (; e + 8 <= last; e += 8) attractionStep8(pos, column + e, value + e, xi, yi, sx, sy);
    if (e < last) {
        uint32_t cols[8];
        float vals[8];
        for (size_t l = 0; l < 8; ++l) {
            const bool in = e + l < last;
            cols[l] = in ? column[e + l] : c;
            vals[l] = in ? value[e + l] : 0.0f;
        }
        attractionStep8(pos, cols, vals, xi, yi, sx, sy);
    }
    float lx[8], ly[8];
    _mm256_storeu_ps(lx, sx);
    _mm256_storeu_ps(ly, sy);
    ax = sumEightLanes(lx);
    ay = sumEightLanes(ly);
}

}  // namespace

void tsneAttraction(const float* pos, const uint32_t* column, const float* value, size_t first,
                    size_t last, uint32_t c, float& ax, float& ay) {
    if (attractionHasAvx2() && attractionAvx2Allowed.load(std::memory_order_relaxed))
        attractionAvx2(pos, column, value, first, last, c, ax, ay);
    else
        attractionPortable(pos, column, value, first, last, c, ax, ay);
}

void useTsneAttractionAvx2(bool allowed) {
    attractionAvx2Allowed.store(allowed, std::memory_order_relaxed);
}

}  // namespace sepal
