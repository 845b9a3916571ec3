#include "core/pipeline/polish_neighbours.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "core/common/error.h"

namespace sepal {

namespace {
// Cells the calling thread searches between two asks of goOn: a few milliseconds of work at
// most, even with lists of thousands of cells.
constexpr size_t kCellsBetweenAsks = 64;

// useNeighbourSearchAvx2's switch: tests compare the two paths.
std::atomic<bool> searchAvx2Allowed{true};

// Whether this CPU runs the vector path (asked once).
bool searchHasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

// The squared distances from x to `count` listed cells whose column t starts at columns[t *
// stride], each summed column by column from 0 (no fused products: core is built with
// -ffp-contract=off), into dist.
void listDistancesPortable(const float* x, size_t d, const float* columns, size_t stride,
                           size_t count, float* dist) {
    std::fill_n(dist, count, 0.0f);
    for (size_t t = 0; t < d; ++t) {
        const float* column = columns + t * stride;
        const float xt = x[t];
        for (size_t c = 0; c < count; ++c) {
            const float e = xt - column[c];
            dist[c] += e * e;
        }
    }
}

// The same sums, 32 cells at a time in registers (each lane the portable path's arithmetic),
// the rest by the portable path.
__attribute__((target("avx2"))) void listDistancesAvx2(const float* x, size_t d,
                                                       const float* columns, size_t stride,
                                                       size_t count, float* dist) {
    size_t c = 0;
    for (; c + 32 <= count; c += 32) {
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        for (size_t t = 0; t < d; ++t) {
            const float* column = columns + t * stride + c;
            const __m256 xt = _mm256_set1_ps(x[t]);
            const __m256 e0 = _mm256_sub_ps(xt, _mm256_loadu_ps(column));
            const __m256 e1 = _mm256_sub_ps(xt, _mm256_loadu_ps(column + 8));
            const __m256 e2 = _mm256_sub_ps(xt, _mm256_loadu_ps(column + 16));
            const __m256 e3 = _mm256_sub_ps(xt, _mm256_loadu_ps(column + 24));
            s0 = _mm256_add_ps(s0, _mm256_mul_ps(e0, e0));
            s1 = _mm256_add_ps(s1, _mm256_mul_ps(e1, e1));
            s2 = _mm256_add_ps(s2, _mm256_mul_ps(e2, e2));
            s3 = _mm256_add_ps(s3, _mm256_mul_ps(e3, e3));
        }
        _mm256_storeu_ps(dist + c, s0);
        _mm256_storeu_ps(dist + c + 8, s1);
        _mm256_storeu_ps(dist + c + 16, s2);
        _mm256_storeu_ps(dist + c + 24, s3);
    }
    for (; c + 8 <= count; c += 8) {
        __m256 s = _mm256_setzero_ps();
        for (size_t t = 0; t < d; ++t) {
            const __m256 e =
                _mm256_sub_ps(_mm256_set1_ps(x[t]), _mm256_loadu_ps(columns + t * stride + c));
            s = _mm256_add_ps(s, _mm256_mul_ps(e, e));
        }
        _mm256_storeu_ps(dist + c, s);
    }
    listDistancesPortable(x, d, columns + c, stride, count - c, dist + c);
}

// The first c in [from, count) with dist[c] <= bound (count where none is): a cell past the
// k-th found can enter only there.
size_t nextAtMostPortable(const float* dist, size_t from, size_t count, float bound) {
    while (from < count && !(dist[from] <= bound)) ++from;
    return from;
}

// The same, eight distances a comparison.
__attribute__((target("avx2"))) size_t nextAtMostAvx2(const float* dist, size_t from, size_t count,
                                                      float bound) {
    const __m256 b = _mm256_set1_ps(bound);
    for (; from + 8 <= count; from += 8) {
        const int mask =
            _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(dist + from), b, _CMP_LE_OQ));
        if (mask) return from + size_t(__builtin_ctz(unsigned(mask)));
    }
    return nextAtMostPortable(dist, from, count, bound);
}

}  // namespace

void useNeighbourSearchAvx2(bool allowed) {
    searchAvx2Allowed.store(allowed, std::memory_order_relaxed);
}

CellLists listCellsByLandmark(const std::vector<uint8_t>& usable,
                              const std::vector<uint32_t>& probe, size_t probes, size_t g,
                              double mostPairs) {
    const size_t n = usable.size();
    CellLists lists;
    lists.usable = usable;
    // A counting sort: ascending cells in each list.
    lists.offset.assign(g + 1, 0);
    for (size_t i = 0; i < n; ++i)
        if (usable[i]) ++lists.offset[probe[i * probes] + 1];
    for (size_t u = 0; u < g; ++u) lists.offset[u + 1] += lists.offset[u];
    lists.cells.resize(lists.offset[g]);
    std::vector<size_t> at(lists.offset.begin(), lists.offset.end() - 1);
    for (size_t i = 0; i < n; ++i)
        if (usable[i]) lists.cells[at[probe[i * probes]]++] = uint32_t(i);
    // The search compares each cell with every cell of its probes' lists: refused when that
    // would run for minutes (a few landmarks for millions of cells).
    double pairs = 0;
    for (size_t u = 0; u < g; ++u)
        lists.longest = std::max(lists.longest, lists.offset[u + 1] - lists.offset[u]);
    for (size_t i = 0; i < n; ++i)
        for (size_t p = 0; usable[i] && p < probes; ++p)
            pairs += double(lists.offset[probe[i * probes + p] + 1] -
                            lists.offset[probe[i * probes + p]]);
    if (pairs > mostPairs) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "polish: finding the cells' neighbours among those of their nearest "
                      "landmarks would compare %.1e pairs; train more landmarks (about one per "
                      "2,000 cells) or polish fewer cells",
                      pairs);
        throw InputError(text);
    }
    return lists;
}

bool candidateNeighbours(const Matrix& points, const CellLists& lists,
                         const std::vector<uint32_t>& probe, size_t probes, size_t k,
                         std::vector<uint32_t>& nbr, std::vector<float>& sq,
                         const std::function<bool()>& goOn) {
    const size_t n = points.rows, d = points.cols;
    const auto& cells = lists.cells;
    const auto& offset = lists.offset;
    // The listed cells' rows column by column, so that a list's distances to a cell are a few
    // passes over contiguous floats.
    const size_t listed = cells.size();
    std::vector<float> columns(d * listed);
#pragma omp parallel for schedule(static)
    for (long long cc = 0; cc < static_cast<long long>(listed); ++cc)
        for (size_t t = 0; t < d; ++t)
            columns[t * listed + size_t(cc)] = points.row(cells[size_t(cc)])[t];
    nbr.assign(n * k, kNoNeighbour);
    sq.assign(n * k, std::numeric_limits<float>::infinity());
    // Asked once before the threads start, so that a stop already asked for is heard whatever
    // the threads' scheduling.
    if (goOn && !goOn()) return false;
    std::atomic<bool> stopped{false};
    const bool avx2 = searchHasAvx2() && searchAvx2Allowed.load(std::memory_order_relaxed);
    const auto distances = avx2 ? listDistancesAvx2 : listDistancesPortable;
    const auto nextAtMost = avx2 ? nextAtMostAvx2 : nextAtMostPortable;
#pragma omp parallel
    {
        std::vector<float> dist(lists.longest);
        // The calling thread (the team's first) asks goOn; the others see its answer.
        const bool asks = goOn && omp_get_thread_num() == 0;
        size_t done = 0;
#pragma omp for schedule(dynamic, 256)
        for (long long ii = 0; ii < static_cast<long long>(n); ++ii) {
            if (stopped.load(std::memory_order_relaxed)) continue;
            if (asks && done > 0 && done % kCellsBetweenAsks == 0 && !goOn()) {
                stopped = true;
                continue;
            }
            ++done;
            const size_t i = size_t(ii);
            if (!lists.usable[i]) continue;
            const float* x = points.row(i);
            uint32_t* id = nbr.data() + i * k;
            float* key = sq.data() + i * k;
            size_t m = 0;
            for (size_t p = 0; p < probes; ++p) {
                const uint32_t u = probe[i * probes + p];
                const size_t first = offset[u], count = offset[u + 1] - first;
                distances(x, d, columns.data() + first, listed, count, dist.data());
                for (size_t c = 0; c < count; ++c) {
                    // Once k are found, only a cell at most the k-th's distance may enter.
                    if (m == k && (c = nextAtMost(dist.data(), c, count, key[k - 1])) == count)
                        break;
                    const uint32_t j = cells[first + c];
                    const float s = dist[c];
                    if (m == k && !(s < key[k - 1] || (s == key[k - 1] && j < id[k - 1]))) continue;
                    if (j == i) continue;
                    size_t pos = m < k ? m++ : k - 1;
                    while (pos > 0 &&
                           (s < key[pos - 1] || (s == key[pos - 1] && j < id[pos - 1]))) {
                        key[pos] = key[pos - 1];
                        id[pos] = id[pos - 1];
                        --pos;
                    }
                    key[pos] = s;
                    id[pos] = j;
                }
            }
        }
    }
    return !stopped;
}

}  // namespace sepal
