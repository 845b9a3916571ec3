// The pair tables' layout by locality rank (locality_rank.h): the ranks keep nearby landmarks
// together, and the CPU's table by slot holds each pair's constants where the pair loops look,
// through a drag's update too; with the layout off the slots are the indices.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/embedsom/embedsom.h"
#include "core/embedsom/locality_rank.h"
#include "core/embedsom/neighbour_cache.h"
#include "core/embedsom/pair_constants.h"
#include "embedsom_data.h"
#include "scoped_pair_rank.h"

namespace sepal {
namespace {

using test::ScopedPairRank;

// Four far clusters of 40 landmarks in a row, their indices interleaved, get four runs of
// consecutive ranks (the halving cuts between them first).
TEST(LocalityRank, KeepsEachClusterOfLandmarksTogether) {
    const size_t clusters = 4, per = 40, g = clusters * per, d = 5;
    std::mt19937 rng(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> landmarks(g * d);
    for (size_t j = 0; j < g; ++j)
        for (size_t t = 0; t < d; ++t)
            landmarks[j * d + t] = normal(rng) + (t == 0 ? 100.0f * float(j % clusters) : 0.0f);
    const std::vector<uint16_t> rank = localityRanks(landmarks.data(), g, d);
    ASSERT_EQ(rank.size(), g);
    std::vector<uint16_t> sorted = rank;
    std::sort(sorted.begin(), sorted.end());
    for (size_t r = 0; r < g; ++r) ASSERT_EQ(sorted[r], r) << "the ranks are not 0..g-1";
    for (size_t c = 0; c < clusters; ++c) {
        uint16_t lo = UINT16_MAX, hi = 0;
        for (size_t j = c; j < g; j += clusters) {
            lo = std::min(lo, rank[j]);
            hi = std::max(hi, rank[j]);
        }
        EXPECT_EQ(size_t(hi - lo), per - 1) << "cluster " << c << " is not one run of ranks";
    }
    EXPECT_EQ(localityRanks(landmarks.data(), 1, d), std::vector<uint16_t>{0});
    EXPECT_TRUE(localityRanks(landmarks.data(), 0, d).empty());
}

/// The constants of (u, v) as PairConstants defines them, from the model.
void expectedPair(const LandmarkModel& m, float adjust, size_t u, size_t v, float out[2]) {
    float sqd = 0.0f;
    for (size_t t = 0; t < m.dim; ++t) {
        const float e = m.highRow(v)[t] - m.highRow(u)[t];
        sqd += e * e;
    }
    const float hx = m.low[2 * v] - m.low[2 * u], hy = m.low[2 * v + 1] - m.low[2 * u + 1];
    const float hp = hx * hx + hy * hy;
    out[0] = out[1] = 0.0f;
    if (sqd == 0.0f || hp < 1e-10f) return;
    out[0] = 1.0f / (2.0f * sqd);
    out[1] = std::pow(1.0f + hp, -adjust);
}

/// Every pair's constants at row(u) + 2 slot(v), and at table() + 2 (slot(u) g + slot(v)).
void expectEveryPair(const PairConstants& pairs, const LandmarkModel& m, float adjust) {
    const size_t g = m.count();
    size_t wrong = 0;
    for (size_t u = 0; u < g; ++u)
        for (size_t v = 0; v < g; ++v) {
            float want[2];
            if (u == v)
                want[0] = want[1] = 0.0f;
            else
                expectedPair(m, adjust, std::min(u, v), std::max(u, v), want);
            const float* at = pairs.row(u) + 2 * pairs.slot(v);
            const float* flat = pairs.table() + 2 * (size_t(pairs.slot(u)) * g + pairs.slot(v));
            wrong += std::memcmp(at, want, sizeof(want)) != 0 || at != flat;
        }
    EXPECT_EQ(wrong, 0u);
}

LandmarkModel clusteredModel(size_t g, size_t d, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    LandmarkModel m;
    m.resize(g, d);
    for (size_t j = 0; j < g; ++j) {
        for (size_t t = 0; t < d; ++t) m.high[j * d + t] = normal(rng) + 20.0f * float(j % 5 == t);
        m.low[2 * j] = float(j % 9), m.low[2 * j + 1] = float(j / 9) + 0.1f * normal(rng);
    }
    m.touch();
    return m;
}

TEST(PairConstantsByRank, EveryPairSitsAtItsSlotsThroughADrag) {
    const size_t g = 70, d = 6;
    for (const bool byRank : {true, false}) {
        SCOPED_TRACE(byRank ? "by rank" : "by index");
        const ScopedPairRank layout(byRank);
        LandmarkModel m = clusteredModel(g, d, 7);
        PairConstants pairs;
        pairs.update(m, 3.0f);
        const std::vector<uint16_t> rank = localityRanks(m.high.data(), g, d);
        size_t identity = 0;
        for (size_t u = 0; u < g; ++u) {
            EXPECT_EQ(pairs.slot(u), byRank ? uint32_t(rank[u]) : uint32_t(u));
            identity += pairs.slot(u) == u;
        }
        if (byRank) EXPECT_LT(identity, g / 2) << "the ranks should reorder these landmarks";
        expectEveryPair(pairs, m, 3.0f);
        // A drag: two landmarks' 2D positions, their rows and columns updated in place.
        m.low[2 * 4] += 1.5f;
        m.low[2 * 33 + 1] -= 2.0f;
        m.touch();
        pairs.update(m, 3.0f);
        expectEveryPair(pairs, m, 3.0f);
    }
}

/// The CPU projector's positions, then the neighbour cache's after a sweep and a drag, one after
/// another.
std::vector<float> projectBothWays(const std::vector<float>& x, size_t n, size_t d,
                                   LandmarkModel model, const EmbedParams& params) {
    std::vector<float> all(2 * n);
    makeCpuProjector()->project(x.data(), n, d, model, params, all.data());
    NeighbourCache cache;
    cache.reset(n);
    std::vector<float> y(2 * n);
    EXPECT_FALSE(cache.takeChanges(model, params).has_value());
    cache.projectRows(x.data(), n, d, 0, n, model, params, y.data());
    model.low[2 * 17] += 0.6f;
    ++model.lowVersion;
    const auto rows = cache.takeChanges(model, params);
    EXPECT_TRUE(rows.has_value());
    std::vector<float> moved(2 * (rows ? rows->size() : 0));
    if (rows)
        cache.projectListed(x.data(), d, rows->data(), rows->size(), model, params, moved.data());
    for (size_t i = 0; rows && i < rows->size(); ++i)
        std::copy(moved.begin() + long(2 * i), moved.begin() + long(2 * i + 2),
                  y.begin() + long(2 * (*rows)[i]));
    all.insert(all.end(), y.begin(), y.end());
    return all;
}

// Clustered cells, 300 landmarks, the app's sharp recipe (smooth -2, adjust 3: some cells take
// the reference's solve), cells with NaN: the same bytes with the table by rank and by index,
// through the projector and through the neighbour cache's drag.
TEST(PairConstantsByRank, ProjectionsAreTheSameBytesEitherWay) {
    const size_t n = 6000, d = 10, g = 300;
    std::vector<float> x = test::randomPoints(n, d, 41, 6);
    const LandmarkModel model = test::gridModel(x, g, d);
    for (size_t i = 100; i < n; i += 700) x[i * d + 2] = NAN;
    const EmbedParams params{.k = 16, .smooth = -2.0f, .adjust = 3.0f};
    std::vector<float> byRank, byIndex;
    {
        const ScopedPairRank layout(true);
        byRank = projectBothWays(x, n, d, model, params);
    }
    {
        const ScopedPairRank layout(false);
        byIndex = projectBothWays(x, n, d, model, params);
    }
    ASSERT_EQ(byRank.size(), byIndex.size());
    size_t differ = 0;
    for (size_t e = 0; e < byRank.size(); ++e)
        differ += std::memcmp(&byRank[e], &byIndex[e], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u);
}

}  // namespace
}  // namespace sepal
