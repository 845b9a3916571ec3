#include "core/embedsom/neighbour_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/common/bytes.h"
#include "core/common/error.h"
#include "core/embedsom/embedsom.h"
#include "core/embedsom/fallback.h"
#include "core/embedsom/fast_point.h"
#include "core/embedsom/projection_input.h"

namespace sepal {

namespace {

/// SEPAL_NEIGHBOUR_CACHE_MB when set (0 turns the cache off, for comparisons), else a quarter
/// of the machine's memory.
size_t defaultLimit() {
    if (const auto bytes = neighbourCacheLimitFromEnvironment())
        return std::max<size_t>(1, *bytes);  // 0: 1, off
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? size_t(pages) * size_t(page) / 4 : size_t(1) << 30;
}

}  // namespace

NeighbourCache::NeighbourCache(size_t limitBytes)
    : m_limit(limitBytes > 0 ? limitBytes : defaultLimit()) {}

size_t NeighbourCache::bytesFor(size_t n, int topnn, size_t g) {
    // Per row: topnn indices and distances, a state byte, and up to topnn index entries.
    return n * (size_t(topnn) * (2 * sizeof(uint32_t) + sizeof(float)) + 1) +
           (g + 1) * sizeof(uint64_t);
}

size_t NeighbourCache::bytes() const {
    return m_idx.capacity() * sizeof(uint32_t) + m_dist.capacity() * sizeof(float) +
           m_state.capacity() + m_offset.capacity() * sizeof(uint64_t) +
           m_rows.capacity() * sizeof(uint32_t) + m_missing.capacity() * sizeof(uint32_t);
}

void NeighbourCache::reset(size_t n) {
    m_n = n;
    m_taken = false;
    clearLists();
}

void NeighbourCache::clearLists() {
    m_key = Key{};
    m_keeping = m_indexed = false;
    m_idx = {}, m_dist = {}, m_state = {}, m_offset = {}, m_rows = {}, m_missing = {};
    m_listed = 0;
}

bool NeighbourCache::matches(const LandmarkModel& model, const ScoreSetup& setup) const {
    return m_key.g == model.count() && m_key.d == model.dim && m_key.topn == setup.topn &&
           m_key.topnn == setup.topnn && m_key.high.size() == model.high.size() &&
           std::memcmp(m_key.high.data(), model.high.data(), model.high.size() * sizeof(float)) ==
               0;
}

void NeighbourCache::adopt(const LandmarkModel& model, const ScoreSetup& setup) {
    const size_t n = m_n;
    clearLists();
    const Key key{model.count(), model.dim, setup.topn, setup.topnn, model.high};
    m_key = key;
    m_tilesReady = false;
    if (m_limit <= 1) {
        m_refusal = "turned off (SEPAL_NEIGHBOUR_CACHE_MB=0): every change re-projects every cell";
    } else if (key.g > kMaxPairTableLandmarks) {
        m_refusal = "no neighbour lists above " + std::to_string(kMaxPairTableLandmarks) +
                    " landmarks: every change re-projects every cell";
    } else if (bytesFor(n, key.topnn, key.g) > m_limit) {
        m_refusal = "the neighbour lists of " + std::to_string(n) + " cells would take " +
                    gigabytes(bytesFor(n, key.topnn, key.g)) + ", more than " + gigabytes(m_limit) +
                    ": every change re-projects every cell";
    } else {
        m_refusal.clear();
        m_keeping = true;
        try {
            m_idx.resize(n * size_t(key.topnn));
            m_dist.resize(n * size_t(key.topnn));
            m_state.assign(n, 0);
        } catch (const std::bad_alloc&) {
            clearLists();
            m_key = key;
            m_refusal = "no memory for the neighbour lists: every change re-projects every cell";
        }
    }
}

ProjectionReport NeighbourCache::projectRows(const float* points, size_t n, size_t d, size_t first,
                                             size_t count, const LandmarkModel& model,
                                             const EmbedParams& params, float* out) {
    const ScoreSetup setup = checkProjectionInput(points, count, d, model, params, out);
    ProjectionReport report;
    if (count == 0) return report;
    if (n != m_n) reset(n);
    if (first + count > n) throw std::logic_error("NeighbourCache: rows beyond the points");
    if (!matches(model, setup)) adopt(model, setup);
    if (model.count() > kMaxPairTableLandmarks) {
        if (!m_plain) m_plain = makeCpuProjector();
        return m_plain->project(points + first * d, count, d, model, params, out);
    }
    if (!m_tilesReady) m_tiles.build(model.high.data(), model.count(), d), m_tilesReady = true;
    m_pairs.update(model, params.adjust);
    const LandmarkTiles& tiles = m_tiles;
    const PairConstants& pairs = m_pairs;
    const size_t g = model.count(), kk = size_t(setup.topnn);
    const bool keeping = m_keeping;
    const long long groups = static_cast<long long>((count + kPointGroup - 1) / kPointGroup);
    size_t nonFinite = 0, degenerate = 0, listed = 0;
#pragma omp parallel if (count >= 64) reduction(+ : nonFinite, degenerate, listed)
    {
        std::vector<float> dist(kPointGroup * tiles.gp), scratchA(kk);
        std::vector<uint32_t> scratchIdx(kk);
        FastPointScratch scratch;
        scratch.reserve(setup.topnn);
#pragma omp for schedule(static)
        for (long long grp = 0; grp < groups; ++grp) {
            const size_t g0 = first + size_t(grp) * kPointGroup;
            const size_t inGroup = std::min(kPointGroup, first + count - g0);
            const float* rows[kPointGroup];
            bool search = false;
            for (size_t p = 0; p < kPointGroup; ++p) {
                rows[p] = points + (g0 + std::min(p, inGroup - 1)) * d;
                if (p < inGroup) search |= !keeping || m_state[g0 + p] == 0;
            }
            if (search) groupDistances(rows, tiles, dist.data());
            for (size_t p = 0; p < inGroup; ++p) {
                const size_t row = g0 + p;
                float* y = out + 2 * (row - first);
                uint8_t state = keeping ? m_state[row] : 0;
                if (state == 0 && !allFinite(rows[p], d)) {
                    state = 2;
                    if (keeping) m_state[row] = 2, ++listed;
                }
                if (state == 2) {
                    placeNonFinitePoint(rows[p], model, setup, y);
                    ++nonFinite;
                    continue;
                }
                uint32_t* idx = keeping ? m_idx.data() + row * kk : scratchIdx.data();
                float* a = keeping ? m_dist.data() + row * kk : scratchA.data();
                if (state == 0) {
                    selectNearest(dist.data() + p * tiles.gp, g, kk, idx, a);
                    if (keeping) m_state[row] = 1, ++listed;
                }
                if (!projectFastPoint(rows[p], model, a, idx, setup, pairs, params.adjust, scratch,
                                      y))
                    ++degenerate;
            }
        }
    }
    m_listed += listed;
    report.nonFinitePoints = nonFinite;
    report.degeneratePoints = degenerate;
    return report;
}

void NeighbourCache::projectListed(const float* points, size_t d, const uint32_t* rows,
                                   size_t count, const LandmarkModel& model,
                                   const EmbedParams& params, float* out) {
    const ScoreSetup setup = checkProjectionInput(points, count, d, model, params, out);
    if (count == 0) return;
    if (!m_keeping || !matches(model, setup))
        throw std::logic_error("NeighbourCache: listed rows projected with another model");
    m_pairs.update(model, params.adjust);
    const PairConstants& pairs = m_pairs;
    const size_t kk = size_t(setup.topnn);
    const long long total = static_cast<long long>(count);
#pragma omp parallel if (count >= 256)
    {
        FastPointScratch scratch;
        scratch.reserve(setup.topnn);
#pragma omp for schedule(static)
        for (long long i = 0; i < total; ++i) {
            const size_t row = rows[i];
            const float* x = points + row * d;
            float* y = out + 2 * i;
            if (m_state[row] == 2)
                placeNonFinitePoint(x, model, setup, y);
            else
                projectFastPoint(x, model, m_dist.data() + row * kk, m_idx.data() + row * kk, setup,
                                 pairs, params.adjust, scratch, y);
        }
    }
}

void NeighbourCache::buildIndex() {
    // A counting sort of (landmark, row) over each row's topn: rows come out ascending.
    const size_t g = m_key.g, kk = size_t(m_key.topnn), topn = size_t(m_key.topn);
    m_offset.assign(g + 1, 0);
    m_missing.clear();
    for (size_t row = 0; row < m_n; ++row) {
        if (m_state[row] == 2) {
            m_missing.push_back(uint32_t(row));
            continue;
        }
        for (size_t j = 0; j < topn; ++j) ++m_offset[m_idx[row * kk + j] + 1];
    }
    for (size_t u = 0; u < g; ++u) m_offset[u + 1] += m_offset[u];
    m_rows.assign(m_offset[g], 0);
    std::vector<uint64_t> at(m_offset.begin(), m_offset.end() - 1);
    for (size_t row = 0; row < m_n; ++row)
        if (m_state[row] == 1)
            for (size_t j = 0; j < topn; ++j) m_rows[at[m_idx[row * kk + j]]++] = uint32_t(row);
    m_indexed = true;
}

std::optional<std::vector<uint32_t>> NeighbourCache::takeChanges(const LandmarkModel& model,
                                                                 const EmbedParams& params) {
    const bool hadTaken = m_taken;
    const std::vector<float> low = std::move(m_low);
    const EmbedParams taken = m_params;
    m_taken = true;
    m_low = model.low;
    m_params = params;
    ScoreSetup setup;
    try {
        setup = makeScoreSetup(resolveK(params, model.count()), model.count(), params.smooth);
    } catch (const InputError&) {
        m_taken = false;  // the projection will say what is wrong
        return std::nullopt;
    }
    // Rows without a list are due already (they were never projected with these landmarks).
    const bool usable = hadTaken && m_keeping && m_n > 0 && matches(model, setup) &&
                        low.size() == model.low.size() && params.smooth == taken.smooth &&
                        params.adjust == taken.adjust && params.k == taken.k;
    if (!usable) return std::nullopt;
    std::vector<uint8_t> moved(model.count(), 0);
    size_t movedCount = 0;
    for (size_t u = 0; u < model.count(); ++u)
        if (model.low[2 * u] != low[2 * u] || model.low[2 * u + 1] != low[2 * u + 1])
            moved[u] = 1, ++movedCount;
    std::vector<uint32_t> rows;
    if (m_listed < m_n) {
        // The lists are still being filled (the first sweep): look through those there are.
        const size_t kk = size_t(m_key.topnn), topn = size_t(m_key.topn);
        for (size_t row = 0; row < m_n; ++row) {
            bool hit = m_state[row] == 2;
            for (size_t j = 0; m_state[row] == 1 && j < topn && !hit; ++j)
                hit = moved[m_idx[row * kk + j]];
            if (hit) rows.push_back(uint32_t(row));
        }
        return rows;
    }
    if (!m_indexed) buildIndex();
    size_t total = m_missing.size();
    for (size_t u = 0; u < model.count(); ++u)
        if (moved[u]) total += m_offset[u + 1] - m_offset[u];
    if (total > m_n / 2) return std::nullopt;  // cheaper to go through every row in order
    rows = m_missing;
    rows.reserve(total);
    for (size_t u = 0; u < model.count(); ++u)
        if (moved[u])
            rows.insert(rows.end(), m_rows.begin() + long(m_offset[u]),
                        m_rows.begin() + long(m_offset[u + 1]));
    if (movedCount > 1 || !m_missing.empty()) {
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    }
    return rows;
}

}  // namespace sepal
