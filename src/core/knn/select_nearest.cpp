// Top-k of one row of distances, ascending, ties by lower index.
//
// The fast path finds a threshold first: eight lanes each keep their m = ceil(k / 8) smallest
// values with vector min/max, and the k-th smallest of those 8m values bounds the k-th smallest
// distance from above. One more pass collects the few distances at or below it, which are then
// sorted as 64-bit keys (distance bits, index): non-negative floats order like their bits. When
// NaN spoils the bound (fewer than k candidates), the plain insertion buffer takes over.

#include <immintrin.h>

#include <algorithm>
#include <cstring>
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

void selectByInsertion(const float* dist, size_t g, size_t k, uint32_t* idx, float* sq) {
    size_t filled = 0, j = 0;
    for (; j < k; ++j) insert(notNan(dist[j]), static_cast<uint32_t>(j), k, filled, idx, sq);
    for (; j < g; ++j)
        if (dist[j] < sq[k - 1]) insert(dist[j], static_cast<uint32_t>(j), k, filled, idx, sq);
}

inline uint64_t sortKey(float a, size_t j) {
    uint32_t bits;
    std::memcpy(&bits, &a, 4);
    return (static_cast<uint64_t>(bits) << 32) | static_cast<uint32_t>(j);
}

constexpr size_t kMaxPerLane = 16;

using Selector = void (*)(const float*, size_t, size_t, uint32_t*, float*);

__attribute__((target("avx2"))) void selectAvx2(const float* dist, size_t g, size_t k,
                                                uint32_t* idx, float* sq) {
    const size_t m = (k + 7) / 8;
    if (m > kMaxPerLane || 2 * k > g || g < 32) return selectByInsertion(dist, g, k, idx, sq);
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    __m256 best[kMaxPerLane];
    for (size_t r = 0; r < m; ++r) best[r] = inf;
    const size_t full = g / 8 * 8;
    for (size_t j = 0; j < full; j += 8) {
        __m256 v = _mm256_loadu_ps(dist + j);
        for (size_t r = 0; r < m; ++r) {
            const __m256 lo = _mm256_min_ps(best[r], v);
            v = _mm256_max_ps(best[r], v);
            best[r] = lo;
        }
    }
    alignas(32) float lanes[8 * kMaxPerLane];
    for (size_t r = 0; r < m; ++r) _mm256_store_ps(lanes + 8 * r, best[r]);
    std::nth_element(lanes, lanes + (k - 1), lanes + 8 * m);
    const float bound = lanes[k - 1];

    uint64_t keys[512];
    size_t count = 0;
    const size_t capacity = sizeof keys / sizeof keys[0];
    const __m256 bv = _mm256_set1_ps(bound);
    for (size_t j = 0; j < full && count + 8 <= capacity; j += 8) {
        unsigned mask = static_cast<unsigned>(
            _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(dist + j), bv, _CMP_LE_OQ)));
        while (mask) {
            const unsigned b = static_cast<unsigned>(__builtin_ctz(mask));
            mask &= mask - 1;
            keys[count++] = sortKey(dist[j + b], j + b);
        }
    }
    for (size_t j = full; j < g && count < capacity; ++j)
        if (dist[j] <= bound) keys[count++] = sortKey(dist[j], j);
    // Too few (NaN) or too many (ties overflowing the buffer) candidates: the plain way.
    if (count < k || count + 8 > capacity) return selectByInsertion(dist, g, k, idx, sq);
    for (size_t i = 1; i < count; ++i) {
        const uint64_t key = keys[i];
        size_t pos = i;
        while (pos > 0 && key < keys[pos - 1]) keys[pos] = keys[pos - 1], --pos;
        keys[pos] = key;
    }
    for (size_t i = 0; i < k; ++i) {
        const uint32_t bits = static_cast<uint32_t>(keys[i] >> 32);
        std::memcpy(sq + i, &bits, 4);
        idx[i] = static_cast<uint32_t>(keys[i]);
    }
}

Selector pickSelector() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? selectAvx2 : selectByInsertion;
}

}  // namespace

void selectNearest(const float* dist, size_t g, size_t k, uint32_t* idx, float* sqdist) {
    static const Selector selector = pickSelector();
    selector(dist, g, k, idx, sqdist);
}

}  // namespace sepal
