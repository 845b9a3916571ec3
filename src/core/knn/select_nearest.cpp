// Top-k of one row of distances, ascending, ties by lower index.
//
// The fast path finds a threshold first: eight lanes (sixteen with AVX-512) each keep their
// m = floor(k / 8) + 1 (floor(k / 16) + 1) smallest values with vector min/max, more than k in
// all, and the k-th smallest of those values bounds the k-th smallest distance from above. One more
// pass collects the few distances at or below it, which are then sorted as 64-bit keys (distance
// bits, index): non-negative floats order like their bits. When NaN spoils the bound (fewer than k
// candidates), the plain insertion buffer takes over.

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/common/sorted_insert.h"
#include "core/knn/landmark_tiles.h"

// GCC 12 reports the _mm512_undefined_*() that its AVX-512 broadcasts start from as maybe
// uninitialised wherever they are inlined; the values are all written.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace sepal {

namespace {

// Inserts (a, j) into the sorted buffer of `filled` entries (capacity k); equal distances stay
// behind earlier (lower) indices because landmarks arrive in index order.
inline void insert(float a, uint32_t j, size_t k, size_t& filled, uint32_t* idx, float* sq) {
    insertSorted(a, j, k, filled, sq, idx);
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

/// Eight distances, NaN as infinity.
__attribute__((target("avx2"))) inline __m256 loadNotNan(const float* at) {
    const __m256 v = _mm256_loadu_ps(at);
    return _mm256_blendv_ps(v, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                            _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

/// k = 1 (the trainers' winner search) as selectByInsertion finds it (the smallest distance,
/// NaN as infinity, ties by lower index), in two vector passes: no candidates to sort.
__attribute__((target("avx2"))) void nearestAvx2(const float* dist, size_t g, uint32_t* idx,
                                                 float* sq) {
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    const size_t full = g / 8 * 8;
    // Four running minima: one alone waits on min's latency at every step. The minimum is
    // exact, so the order of the comparisons changes nothing.
    __m256 low[4] = {inf, inf, inf, inf};
    size_t j = 0;
    for (; j + 32 <= full; j += 32)
        for (int r = 0; r < 4; ++r) low[r] = _mm256_min_ps(low[r], loadNotNan(dist + j + 8 * r));
    for (; j < full; j += 8) low[0] = _mm256_min_ps(low[0], loadNotNan(dist + j));
    low[0] = _mm256_min_ps(_mm256_min_ps(low[0], low[1]), _mm256_min_ps(low[2], low[3]));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, low[0]);
    float smallest = std::numeric_limits<float>::infinity();
    for (const float v : lanes) smallest = std::min(smallest, v);
    for (size_t j = full; j < g; ++j) smallest = std::min(smallest, notNan(dist[j]));
    *sq = smallest;
    *idx = 0;
    const __m256 target = _mm256_set1_ps(smallest);
    for (size_t j = 0; j < full; j += 8) {
        const unsigned mask = static_cast<unsigned>(
            _mm256_movemask_ps(_mm256_cmp_ps(loadNotNan(dist + j), target, _CMP_EQ_OQ)));
        if (mask != 0) {
            *idx = static_cast<uint32_t>(j + size_t(__builtin_ctz(mask)));
            return;
        }
    }
    for (size_t j = full; j < g; ++j)
        if (notNan(dist[j]) == smallest) {
            *idx = static_cast<uint32_t>(j);
            return;
        }
}

constexpr size_t kMaxPerLane = 8;
constexpr size_t kCapacity = 512;

// Eight lanes keep their M smallest values (a vector insertion by min/max); returns the k-th
// smallest of those 8M values, which bounds the k-th smallest distance from above.
template <size_t M>
__attribute__((target("avx2"))) float laneBound(const float* dist, size_t full, size_t k) {
    const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
    __m256 best[M];
    for (size_t r = 0; r < M; ++r) best[r] = inf;
    for (size_t j = 0; j < full; j += 8) {
        __m256 v = _mm256_loadu_ps(dist + j);
        for (size_t r = 0; r < M; ++r) {
            const __m256 lo = _mm256_min_ps(best[r], v);
            v = _mm256_max_ps(best[r], v);
            best[r] = lo;
        }
    }
    // The smallest value with at least k values at or below it, without branches.
    alignas(32) float lanes[8 * M];
    for (size_t r = 0; r < M; ++r) _mm256_store_ps(lanes + 8 * r, best[r]);
    float bound = std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < 8 * M; ++i) {
        const __m256 x = _mm256_set1_ps(lanes[i]);
        int count = 0;
        for (size_t r = 0; r < M; ++r)
            count += __builtin_popcount(
                static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(best[r], x, _CMP_LE_OQ))));
        bound = count >= static_cast<int>(k) && lanes[i] < bound ? lanes[i] : bound;
    }
    return bound;
}

// Positions of the set bits of an 8-bit mask, packed as nibbles, for the left-packing permute.
struct PackTable {
    uint32_t nibbles[256];
    PackTable() {
        for (unsigned m = 0; m < 256; ++m) {
            uint32_t v = 0;
            int n = 0;
            for (unsigned b = 0; b < 8; ++b)
                if (m & (1u << b)) v |= b << (4 * n++);
            nibbles[m] = v;
        }
    }
};
const PackTable kPack;

// The candidates' (distance, index) keys, padded with INT64_MAX to a multiple of `width`.
inline void makeKeys(const float* dist, const uint32_t* cand, size_t count, size_t width,
                     int64_t* keys) {
    for (size_t i = 0; i < count; ++i)
        keys[i] = static_cast<int64_t>(sortKey(dist[cand[i]], cand[i]));
    for (size_t i = count; i < (count + width - 1) / width * width; ++i) keys[i] = INT64_MAX;
}

// The first k sorted keys as indices and distances.
inline void writeKeys(const int64_t* keys, size_t k, uint32_t* idx, float* sq) {
    for (size_t i = 0; i < k; ++i) {
        const uint32_t bits = static_cast<uint32_t>(static_cast<uint64_t>(keys[i]) >> 32);
        std::memcpy(sq + i, &bits, 4);
        idx[i] = static_cast<uint32_t>(keys[i]);
    }
}

__attribute__((target("avx2"))) void selectAvx2(const float* dist, size_t g, size_t k,
                                                uint32_t* idx, float* sq) {
    if (k == 1) return nearestAvx2(dist, g, idx, sq);
    // More than k values kept where they fit, as in selectAvx512.
    const size_t m = std::min((k + 8) / 8, kMaxPerLane);
    if (k > 8 * kMaxPerLane || 2 * k > g || g < 32) return selectByInsertion(dist, g, k, idx, sq);
    const size_t full = g / 8 * 8;
    float bound = 0.0f;
    switch (m) {
        case 1:
            bound = laneBound<1>(dist, full, k);
            break;
        case 2:
            bound = laneBound<2>(dist, full, k);
            break;
        case 3:
            bound = laneBound<3>(dist, full, k);
            break;
        case 4:
            bound = laneBound<4>(dist, full, k);
            break;
        case 5:
            bound = laneBound<5>(dist, full, k);
            break;
        case 6:
            bound = laneBound<6>(dist, full, k);
            break;
        case 7:
            bound = laneBound<7>(dist, full, k);
            break;
        default:
            bound = laneBound<8>(dist, full, k);
            break;
    }

    // Left-pack the indices of the distances at or below the bound, eight at a time.
    alignas(32) uint32_t cand[kCapacity + 8];
    size_t count = 0;
    const __m256 bv = _mm256_set1_ps(bound);
    const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    const __m256i nibble = _mm256_set1_epi32(15);
    for (size_t j = 0; j < full; j += 8) {
        if (count > kCapacity - 8) return selectByInsertion(dist, g, k, idx, sq);
        const unsigned mask = static_cast<unsigned>(
            _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(dist + j), bv, _CMP_LE_OQ)));
        const __m256i perm = _mm256_and_si256(
            _mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(kPack.nibbles[mask])), shifts),
            nibble);
        const __m256i lanesIdx = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(j)), perm);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(cand + count), lanesIdx);
        count += static_cast<size_t>(__builtin_popcount(mask));
    }
    for (size_t j = full; j < g && count < kCapacity; ++j)
        if (dist[j] <= bound) cand[count++] = static_cast<uint32_t>(j);
    // Too few candidates (NaN spoilt the bound) or too many (ties): the plain way.
    if (count < k || count >= kCapacity) return selectByInsertion(dist, g, k, idx, sq);

    // Sort by (distance, index) as 64-bit keys; a key's rank is how many keys are smaller.
    alignas(32) int64_t keys[kCapacity + 4];
    makeKeys(dist, cand, count, 4, keys);
    if (count > 64) {
        std::sort(keys, keys + count);
    } else {
        alignas(32) int64_t sorted[64];
        const size_t vecs = (count + 3) / 4;
        for (size_t i = 0; i < count; ++i) {
            const __m256i x = _mm256_set1_epi64x(keys[i]);
            __m256i smaller = _mm256_setzero_si256();
            for (size_t v = 0; v < vecs; ++v)
                smaller = _mm256_sub_epi64(
                    smaller,
                    _mm256_cmpgt_epi64(
                        x, _mm256_load_si256(reinterpret_cast<const __m256i*>(keys + 4 * v))));
            alignas(32) int64_t c4[4];
            _mm256_store_si256(reinterpret_cast<__m256i*>(c4), smaller);
            const int64_t rank = c4[0] + c4[1] + c4[2] + c4[3];
            sorted[rank] = keys[i];
        }
        std::memcpy(keys, sorted, k * sizeof(int64_t));
    }
    writeKeys(keys, k, idx, sq);
}

// laneBound with sixteen lanes: M values a lane (selectAvx512 picks M).
template <size_t M>
__attribute__((target("avx512f"))) float laneBound16(const float* dist, size_t full, size_t k) {
    const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
    __m512 best[M];
    for (size_t r = 0; r < M; ++r) best[r] = inf;
    for (size_t j = 0; j < full; j += 16) {
        __m512 v = _mm512_loadu_ps(dist + j);
        for (size_t r = 0; r < M; ++r) {
            const __m512 lo = _mm512_min_ps(best[r], v);
            v = _mm512_max_ps(best[r], v);
            best[r] = lo;
        }
    }
    alignas(64) float lanes[16 * M];
    for (size_t r = 0; r < M; ++r) _mm512_store_ps(lanes + 16 * r, best[r]);
    float bound = std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < 16 * M; ++i) {
        const __m512 x = _mm512_set1_ps(lanes[i]);
        int count = 0;
        for (size_t r = 0; r < M; ++r)
            count += __builtin_popcount(_mm512_cmp_ps_mask(best[r], x, _CMP_LE_OQ));
        bound = count >= static_cast<int>(k) && lanes[i] < bound ? lanes[i] : bound;
    }
    return bound;
}

// selectAvx2's three steps with sixteen lanes: the bound, the candidates compressed out of each
// register by mask, and the ranks of their 64-bit keys eight at a time.
__attribute__((target("avx512f"))) void selectAvx512(const float* dist, size_t g, size_t k,
                                                     uint32_t* idx, float* sq) {
    // More than k values kept where they fit (k = 16: two a lane, not one). With exactly k the
    // bound is the largest of all the kept, far above the k-th distance: for k = 16 at g = 512
    // some 50 distances pass it, and ranking them costs more than a second min/max a register.
    const size_t m = std::min<size_t>((k + 16) / 16, 4);
    if (k == 1 || k > 64 || 2 * k > g || g < 32) return selectAvx2(dist, g, k, idx, sq);
    const size_t full = g / 16 * 16;
    float bound = 0.0f;
    switch (m) {
        case 1:
            bound = laneBound16<1>(dist, full, k);
            break;
        case 2:
            bound = laneBound16<2>(dist, full, k);
            break;
        case 3:
            bound = laneBound16<3>(dist, full, k);
            break;
        default:
            bound = laneBound16<4>(dist, full, k);
            break;
    }

    alignas(64) uint32_t cand[kCapacity + 16];
    size_t count = 0;
    const __m512 bv = _mm512_set1_ps(bound);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (size_t j = 0; j < full; j += 16) {
        if (count > kCapacity - 16) return selectByInsertion(dist, g, k, idx, sq);
        const __mmask16 mask = _mm512_cmp_ps_mask(_mm512_loadu_ps(dist + j), bv, _CMP_LE_OQ);
        const __m512i at = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(j)), iota);
        _mm512_storeu_si512(cand + count, _mm512_maskz_compress_epi32(mask, at));
        count += static_cast<size_t>(__builtin_popcount(mask));
    }
    for (size_t j = full; j < g && count < kCapacity; ++j)
        if (dist[j] <= bound) cand[count++] = static_cast<uint32_t>(j);
    if (count < k || count >= kCapacity) return selectByInsertion(dist, g, k, idx, sq);

    alignas(64) int64_t keys[kCapacity + 8];
    makeKeys(dist, cand, count, 8, keys);
    if (count > 64) {
        std::sort(keys, keys + count);
    } else {
        // The keys differ (each holds its index), so their ranks place each exactly once.
        alignas(64) int64_t sorted[64];
        const size_t vecs = (count + 7) / 8;
        for (size_t i = 0; i < count; ++i) {
            const __m512i x = _mm512_set1_epi64(keys[i]);
            int rank = 0;
            for (size_t v = 0; v < vecs; ++v)
                rank +=
                    __builtin_popcount(_mm512_cmpgt_epi64_mask(x, _mm512_load_si512(keys + 8 * v)));
            sorted[rank] = keys[i];
        }
        std::memcpy(keys, sorted, k * sizeof(int64_t));
    }
    writeKeys(keys, k, idx, sq);
}

}  // namespace

bool selectKernelAvailable(SelectKernel kernel) {
    __builtin_cpu_init();
    switch (kernel) {
        case SelectKernel::Insertion:
            return true;
        case SelectKernel::Avx2:
            return __builtin_cpu_supports("avx2");
        case SelectKernel::Avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2");
    }
    return false;
}

void selectNearestWith(SelectKernel kernel, const float* dist, size_t g, size_t k, uint32_t* idx,
                       float* sqdist) {
    switch (kernel) {
        case SelectKernel::Avx512:
            return selectAvx512(dist, g, k, idx, sqdist);
        case SelectKernel::Avx2:
            return selectAvx2(dist, g, k, idx, sqdist);
        case SelectKernel::Insertion:
            break;
    }
    selectByInsertion(dist, g, k, idx, sqdist);
}

void selectNearest(const float* dist, size_t g, size_t k, uint32_t* idx, float* sqdist) {
    static const SelectKernel fastest =
        selectKernelAvailable(SelectKernel::Avx512) ? SelectKernel::Avx512
        : selectKernelAvailable(SelectKernel::Avx2) ? SelectKernel::Avx2
                                                    : SelectKernel::Insertion;
    selectNearestWith(fastest, dist, g, k, idx, sqdist);
}

}  // namespace sepal
