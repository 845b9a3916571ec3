// The blocked kernels of distances (the projection's, difference form) and of the k-NN graph's
// dot-product keys: each picks the widest vector instructions the CPU has at run time, so the
// binary stays portable (no -march) and fast where AVX2 or AVX-512 exist.
// In the difference form each square is rounded before it is added, as the reference does: a
// fused multiply-add changes the last bits of a distance, and the scores amplify that (a one-pass
// variance and an exponential) into moves of 1e-3 of the layout's extent with negative
// smoothing. The dot-product form's keys only rank candidates (the k-NN graph re-ranks them
// exactly): one fused multiply-add a term, the same on every path.

#include <immintrin.h>

#include <cmath>

#include "core/knn/block_sums_avx512.h"
#include "core/knn/landmark_tiles.h"

namespace sepal {

namespace {

/// What a kernel computes: squared differences, or |y|^2 - 2 x.y.
enum class Form { Difference, Dot };

using Kernel = void (*)(const float* const*, const LandmarkTiles&, const float*, float*);

// Four points against 32 columns per step (blockSumsAvx512).
template <Form F>
__attribute__((target("avx512f"))) void kernelAvx512(const float* const* x,
                                                     const LandmarkTiles& tiles, const float* norms,
                                                     float* out) {
    const size_t gp = tiles.gp, d = tiles.d;
    for (size_t j = 0; j < gp; j += 32) {
        __m512 acc[4][2];
        blockSumsAvx512<F == Form::Dot>(x, tiles.values.data() + j, gp, d, acc);
        for (int h = 0; h < 2; ++h)
            for (int p = 0; p < 4; ++p) {
                __m512 v = acc[p][h];
                if constexpr (F == Form::Dot)
                    v = _mm512_fnmadd_ps(_mm512_set1_ps(2.0f), v,
                                         _mm512_loadu_ps(norms + j + 16 * h));
                _mm512_storeu_ps(out + p * gp + j + 16 * h, v);
            }
    }
}

template <Form F>
__attribute__((target("avx2,fma"))) void kernelAvx2(const float* const* x,
                                                    const LandmarkTiles& tiles, const float* norms,
                                                    float* out) {
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
                if constexpr (F == Form::Difference) {
                    const __m256 e0 = _mm256_sub_ps(xv, l0), e1 = _mm256_sub_ps(xv, l1);
                    acc[p][0] = _mm256_add_ps(acc[p][0], _mm256_mul_ps(e0, e0));
                    acc[p][1] = _mm256_add_ps(acc[p][1], _mm256_mul_ps(e1, e1));
                } else {
                    acc[p][0] = _mm256_fmadd_ps(xv, l0, acc[p][0]);
                    acc[p][1] = _mm256_fmadd_ps(xv, l1, acc[p][1]);
                }
            }
        }
        for (int h = 0; h < 2; ++h)
            for (int p = 0; p < 4; ++p) {
                __m256 v = acc[p][h];
                if constexpr (F == Form::Dot)
                    v = _mm256_fnmadd_ps(_mm256_set1_ps(2.0f), v,
                                         _mm256_loadu_ps(norms + j + 8 * h));
                _mm256_storeu_ps(out + p * gp + j + 8 * h, v);
            }
    }
}

template <Form F>
void kernelPortable(const float* const* x, const LandmarkTiles& tiles, const float* norms,
                    float* out) {
    const size_t gp = tiles.gp, d = tiles.d;
    for (int p = 0; p < 4; ++p) {
        float* o = out + p * gp;
        for (size_t j = 0; j < gp; ++j) o[j] = 0.0f;
        for (size_t t = 0; t < d; ++t) {
            const float* row = tiles.values.data() + t * gp;
            const float xt = x[p][t];
            for (size_t j = 0; j < gp; ++j) {
                if constexpr (F == Form::Difference) {
                    const float e = xt - row[j];
                    o[j] += e * e;
                } else {
                    o[j] = std::fma(xt, row[j], o[j]);
                }
            }
        }
        if constexpr (F == Form::Dot)
            for (size_t j = 0; j < gp; ++j) o[j] = std::fma(-2.0f, o[j], norms[j]);
    }
}

template <Form F>
Kernel pickKernel() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return kernelAvx512<F>;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kernelAvx2<F>;
    return kernelPortable<F>;
}

}  // namespace

void groupDistances(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                    float* dist) {
    static const Kernel kernel = pickKernel<Form::Difference>();
    kernel(points, tiles, nullptr, dist);
}

void groupDotKeys(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                  const float* norms, float* keys) {
    static const Kernel kernel = pickKernel<Form::Dot>();
    kernel(points, tiles, norms, keys);
}

}  // namespace sepal
