#include "core/pipeline/polish_neighbours.h"

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
}  // namespace

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
                std::fill_n(dist.begin(), count, 0.0f);
                for (size_t t = 0; t < d; ++t) {
                    const float* column = columns.data() + t * listed + first;
                    const float xt = x[t];
                    for (size_t c = 0; c < count; ++c) {
                        const float e = xt - column[c];
                        dist[c] += e * e;
                    }
                }
                for (size_t c = 0; c < count; ++c) {
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
