// Each column's distance is the difference form's (each square rounded, then added, dimensions
// in order), as groupDistances makes it, so the winner and its distance are the same bits
// whichever pass finds them.

#include "core/knn/nearest_blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/knn/block_sums_avx512.h"

namespace sepal {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();

size_t blockCount(const LandmarkTiles& tiles, const BlockSelection& selection) {
    return selection.blocks ? selection.count : tiles.gp / kLandmarkBlock;
}

/// (value, index) is the new best: smaller, or as small with a lower index.
inline bool better(float value, uint32_t index, float best, uint32_t bestIndex) {
    return value < best || (value == best && index < bestIndex);
}

// A block's 32 distances at a time, dimension after dimension: the inner loop over columns is
// one the compiler vectorises with the baseline instructions.
void nearestPortable(const float* const* x, const LandmarkTiles& tiles,
                     const BlockSelection& selection, uint32_t* idx, float* sq, float* blockMin) {
    const size_t gp = tiles.gp, d = tiles.d, g = tiles.g, blocks = blockCount(tiles, selection);
    float best[kPointGroup];
    uint32_t bestIndex[kPointGroup];
    std::fill_n(best, kPointGroup, kInf);
    std::fill_n(bestIndex, kPointGroup, kNoIndex);
    for (size_t b = 0; b < blocks; ++b) {
        const size_t first = size_t(selection.blocks ? selection.blocks[b] : b) * kLandmarkBlock;
        const size_t columns = std::min(kLandmarkBlock, g - std::min(g, first));
        for (size_t p = 0; p < kPointGroup; ++p) {
            float acc[kLandmarkBlock] = {};
            for (size_t t = 0; t < d; ++t) {
                const float xt = x[p][t];
                const float* row = tiles.values.data() + t * gp + first;
                for (size_t c = 0; c < kLandmarkBlock; ++c) {
                    const float e = xt - row[c];
                    acc[c] += e * e;
                }
            }
            float smallest = kInf;
            for (size_t c = 0; c < columns; ++c) {
                const float a = std::isnan(acc[c]) ? kInf : acc[c];
                const uint32_t index = selection.columnIndex ? selection.columnIndex[first + c]
                                                             : static_cast<uint32_t>(first + c);
                if (better(a, index, best[p], bestIndex[p])) best[p] = a, bestIndex[p] = index;
                smallest = std::min(smallest, a);
            }
            if (blockMin) blockMin[p * blocks + b] = smallest;
        }
    }
    for (size_t p = 0; p < kPointGroup; ++p) {
        idx[p] = bestIndex[p] == kNoIndex ? 0 : bestIndex[p];
        sq[p] = best[p];
    }
}

/// The smallest of sixteen floats.
__attribute__((target("avx512f"))) inline float minOf16(__m512 v) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, v);
    float m = lanes[0];
    for (int l = 1; l < 16; ++l) m = std::min(m, lanes[l]);
    return m;
}

// Four points against 32 columns per step (blockSumsAvx512); lane l of a point keeps the
// best (value, index) among the columns it has seen, and the lanes are reduced at the end.
__attribute__((target("avx512f"))) void nearestAvx512(const float* const* x,
                                                      const LandmarkTiles& tiles,
                                                      const BlockSelection& selection,
                                                      uint32_t* idx, float* sq, float* blockMin) {
    const size_t gp = tiles.gp, d = tiles.d, g = tiles.g, blocks = blockCount(tiles, selection);
    const __m512 inf = _mm512_set1_ps(kInf);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512 best[4] = {inf, inf, inf, inf};
    __m512i bestAt[4];
    for (auto& b : bestAt) b = _mm512_set1_epi32(-1);  // kNoIndex
    for (size_t b = 0; b < blocks; ++b) {
        const size_t j = size_t(selection.blocks ? selection.blocks[b] : b) * kLandmarkBlock;
        __m512 acc[4][2];
        blockSumsAvx512<false>(x, tiles.values.data() + j, gp, d, acc);
        __m512 smallest[4] = {inf, inf, inf, inf};
        for (int h = 0; h < 2; ++h) {
            const size_t first = j + 16 * size_t(h);
            // Padding columns are not landmarks: they stay +infinity and are never taken.
            const __mmask16 real = first + 16 <= g ? __mmask16(0xFFFF)
                                   : first >= g    ? __mmask16(0)
                                                   : __mmask16((1u << (g - first)) - 1u);
            const __m512i at =
                selection.columnIndex
                    ? _mm512_loadu_si512(selection.columnIndex + first)
                    : _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<int>(first)));
            for (int p = 0; p < 4; ++p) {
                __m512 v = _mm512_mask_mov_ps(inf, real, acc[p][h]);
                v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), inf);
                const __mmask16 take =
                    real & (_mm512_cmp_ps_mask(v, best[p], _CMP_LT_OQ) |
                            (_mm512_cmp_ps_mask(v, best[p], _CMP_EQ_OQ) &
                             _mm512_cmp_epu32_mask(at, bestAt[p], _MM_CMPINT_LT)));
                best[p] = _mm512_mask_mov_ps(best[p], take, v);
                bestAt[p] = _mm512_mask_mov_epi32(bestAt[p], take, at);
                smallest[p] = _mm512_mask_mov_ps(smallest[p],
                                                 _mm512_cmp_ps_mask(v, smallest[p], _CMP_LT_OQ), v);
            }
        }
        if (blockMin)
            for (int p = 0; p < 4; ++p) blockMin[size_t(p) * blocks + b] = minOf16(smallest[p]);
    }
    for (int p = 0; p < 4; ++p) {
        alignas(64) float value[16];
        alignas(64) uint32_t at[16];
        _mm512_store_ps(value, best[p]);
        _mm512_store_si512(at, bestAt[p]);
        float bestValue = value[0];
        uint32_t bestIndex = at[0];
        for (int l = 1; l < 16; ++l)
            if (better(value[l], at[l], bestValue, bestIndex))
                bestValue = value[l], bestIndex = at[l];
        idx[p] = bestIndex == kNoIndex ? 0 : bestIndex;
        sq[p] = bestValue;
    }
}

}  // namespace

bool fastBlockKernel() {
    static const bool avx512 = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f"));
    return avx512;
}

void groupNearestInBlocks(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                          const BlockSelection& selection, uint32_t idx[kPointGroup],
                          float sq[kPointGroup], float* blockMin) {
    if (fastBlockKernel()) return nearestAvx512(points, tiles, selection, idx, sq, blockMin);
    nearestPortable(points, tiles, selection, idx, sq, blockMin);
}

void groupNearest(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                  uint32_t idx[kPointGroup], float sqdist[kPointGroup]) {
    if (fastBlockKernel())
        return nearestAvx512(points, tiles, BlockSelection{}, idx, sqdist, nullptr);
    // Without AVX-512 the stored rows and the vector selection are the faster pair.
    thread_local std::vector<float> dist;
    dist.resize(kPointGroup * tiles.gp);
    groupDistances(points, tiles, dist.data());
    for (size_t p = 0; p < kPointGroup; ++p)
        selectNearest(dist.data() + p * tiles.gp, tiles.g, 1, idx + p, sqdist + p);
}

}  // namespace sepal
