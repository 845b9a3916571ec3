// The blocked distance kernels: each picks the widest vector instructions the CPU has at run
// time, so the binary stays portable (no -march) and fast where AVX2 or AVX-512 exist.
// Each square is rounded before it is added, as the reference does: a fused multiply-add
// changes the last bits of a distance, and the scores amplify that (a one-pass variance and an
// exponential) into moves of 1e-3 of the layout's extent with negative smoothing.

#include <immintrin.h>

#include "core/knn/landmark_tiles.h"

namespace sepal {

namespace {

using Kernel = void (*)(const float* const*, const LandmarkTiles&, float*);

// Four points against 32 landmark columns per step: eight accumulators, each loaded landmark
// vector used four times.
__attribute__((target("avx512f"))) void distancesAvx512(const float* const* x,
                                                        const LandmarkTiles& tiles, float* dist) {
    const size_t gp = tiles.gp, d = tiles.d;
    for (size_t j = 0; j < gp; j += 32) {
        __m512 acc[4][2];
        for (auto& a : acc) a[0] = a[1] = _mm512_setzero_ps();
        const float* col = tiles.values.data() + j;
        for (size_t t = 0; t < d; ++t) {
            const __m512 l0 = _mm512_loadu_ps(col + t * gp);
            const __m512 l1 = _mm512_loadu_ps(col + t * gp + 16);
            for (int p = 0; p < 4; ++p) {
                const __m512 xv = _mm512_set1_ps(x[p][t]);
                const __m512 e0 = _mm512_sub_ps(xv, l0), e1 = _mm512_sub_ps(xv, l1);
                acc[p][0] = _mm512_add_ps(acc[p][0], _mm512_mul_ps(e0, e0));
                acc[p][1] = _mm512_add_ps(acc[p][1], _mm512_mul_ps(e1, e1));
            }
        }
        for (int p = 0; p < 4; ++p) {
            _mm512_storeu_ps(dist + p * gp + j, acc[p][0]);
            _mm512_storeu_ps(dist + p * gp + j + 16, acc[p][1]);
        }
    }
}

__attribute__((target("avx2,fma"))) void distancesAvx2(const float* const* x,
                                                       const LandmarkTiles& tiles, float* dist) {
    const size_t gp = tiles.gp, d = tiles.d;
    for (size_t j = 0; j < gp; j += 16) {
        __m256 acc[4][2];
        for (auto& a : acc) a[0] = a[1] = _mm256_setzero_ps();
        const float* col = tiles.values.data() + j;
        for (size_t t = 0; t < d; ++t) {
            const __m256 l0 = _mm256_loadu_ps(col + t * gp);
            const __m256 l1 = _mm256_loadu_ps(col + t * gp + 8);
            for (int p = 0; p < 4; ++p) {
                const __m256 xv = _mm256_broadcast_ss(x[p] + t);
                const __m256 e0 = _mm256_sub_ps(xv, l0), e1 = _mm256_sub_ps(xv, l1);
                acc[p][0] = _mm256_add_ps(acc[p][0], _mm256_mul_ps(e0, e0));
                acc[p][1] = _mm256_add_ps(acc[p][1], _mm256_mul_ps(e1, e1));
            }
        }
        for (int p = 0; p < 4; ++p) {
            _mm256_storeu_ps(dist + p * gp + j, acc[p][0]);
            _mm256_storeu_ps(dist + p * gp + j + 8, acc[p][1]);
        }
    }
}

void distancesPortable(const float* const* x, const LandmarkTiles& tiles, float* dist) {
    const size_t gp = tiles.gp, d = tiles.d;
    for (int p = 0; p < 4; ++p) {
        float* out = dist + p * gp;
        for (size_t j = 0; j < gp; ++j) out[j] = 0.0f;
        for (size_t t = 0; t < d; ++t) {
            const float* row = tiles.values.data() + t * gp;
            const float xt = x[p][t];
            for (size_t j = 0; j < gp; ++j) {
                const float e = xt - row[j];
                out[j] += e * e;
            }
        }
    }
}

Kernel pickKernel() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return distancesAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return distancesAvx2;
    return distancesPortable;
}

}  // namespace

void groupDistances(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                    float* dist) {
    static const Kernel kernel = pickKernel();
    kernel(points, tiles, dist);
}

}  // namespace sepal
