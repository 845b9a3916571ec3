// Top-k by an insertion buffer: a vector compare against the current k-th distance rejects
// most landmarks eight at a time; the few that pass are inserted in order.

#include <immintrin.h>

#include <limits>

#include "core/knn/landmark_tiles.h"

namespace sepal {

namespace {

// Inserts (a, j) into the sorted buffer of `filled` entries (capacity k); equal distances stay
// behind earlier (lower) indices because landmarks arrive in index order.
inline void insert(float a, uint32_t j, size_t k, size_t& filled, uint32_t* idx, float* sq) {
    size_t pos = filled < k ? filled++ : k - 1;
    while (pos > 0 && a < sq[pos - 1]) {
        sq[pos] = sq[pos - 1];
        idx[pos] = idx[pos - 1];
        --pos;
    }
    sq[pos] = a;
    idx[pos] = j;
}

inline float notNan(float a) {
    return a == a ? a : std::numeric_limits<float>::infinity();
}

using Selector = void (*)(const float*, size_t, size_t, uint32_t*, float*);

__attribute__((target("avx2"))) void selectAvx2(const float* dist, size_t g, size_t k,
                                                uint32_t* idx, float* sq) {
    size_t filled = 0, j = 0;
    for (; j < k; ++j) insert(notNan(dist[j]), static_cast<uint32_t>(j), k, filled, idx, sq);
    for (; j < g && (j & 7); ++j)
        if (dist[j] < sq[k - 1]) insert(dist[j], static_cast<uint32_t>(j), k, filled, idx, sq);
    for (; j + 8 <= g; j += 8) {
        const __m256 v = _mm256_loadu_ps(dist + j);
        unsigned mask = static_cast<unsigned>(
            _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_set1_ps(sq[k - 1]), _CMP_LT_OQ)));
        while (mask) {
            const unsigned b = static_cast<unsigned>(__builtin_ctz(mask));
            mask &= mask - 1;
            // The threshold may have dropped since the compare.
            if (dist[j + b] < sq[k - 1])
                insert(dist[j + b], static_cast<uint32_t>(j + b), k, filled, idx, sq);
        }
    }
    for (; j < g; ++j)
        if (dist[j] < sq[k - 1]) insert(dist[j], static_cast<uint32_t>(j), k, filled, idx, sq);
}

void selectPortable(const float* dist, size_t g, size_t k, uint32_t* idx, float* sq) {
    size_t filled = 0, j = 0;
    for (; j < k; ++j) insert(notNan(dist[j]), static_cast<uint32_t>(j), k, filled, idx, sq);
    for (; j < g; ++j)
        if (dist[j] < sq[k - 1]) insert(dist[j], static_cast<uint32_t>(j), k, filled, idx, sq);
}

Selector pickSelector() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? selectAvx2 : selectPortable;
}

}  // namespace

void selectNearest(const float* dist, size_t g, size_t k, uint32_t* idx, float* sqdist) {
    static const Selector selector = pickSelector();
    selector(dist, g, k, idx, sqdist);
}

}  // namespace sepal
