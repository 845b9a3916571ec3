#pragma once
// The inner step of the AVX-512 kernels (distance_kernels.cpp, nearest_blocks.cpp): four points
// against one block of 32 columns, eight accumulators, each loaded column vector used four times.

#include <immintrin.h>

#include <cstddef>

namespace sepal {

/// acc[p][h] = for point x[p], over dimensions t in order, the sum for columns col[16 h ..
/// 16 h + 15] (col: the block's first column in tiles of row stride gp) of the squared
/// difference (each square rounded, then added) or, with Dot, of x_t * column_t (fused).
/// Callers must themselves be compiled for "avx512f".
template <bool Dot>
__attribute__((target("avx512f"), always_inline)) inline void blockSumsAvx512(const float* const* x,
                                                                              const float* col,
                                                                              size_t gp, size_t d,
                                                                              __m512 acc[4][2]) {
    for (int p = 0; p < 4; ++p) acc[p][0] = acc[p][1] = _mm512_setzero_ps();
    for (size_t t = 0; t < d; ++t) {
        const __m512 l0 = _mm512_loadu_ps(col + t * gp);
        const __m512 l1 = _mm512_loadu_ps(col + t * gp + 16);
        for (int p = 0; p < 4; ++p) {
            const __m512 xv = _mm512_set1_ps(x[p][t]);
            if constexpr (Dot) {
                acc[p][0] = _mm512_fmadd_ps(xv, l0, acc[p][0]);
                acc[p][1] = _mm512_fmadd_ps(xv, l1, acc[p][1]);
            } else {
                const __m512 e0 = _mm512_sub_ps(xv, l0), e1 = _mm512_sub_ps(xv, l1);
                acc[p][0] = _mm512_add_ps(acc[p][0], _mm512_mul_ps(e0, e0));
                acc[p][1] = _mm512_add_ps(acc[p][1], _mm512_mul_ps(e1, e1));
            }
        }
    }
}

}  // namespace sepal
