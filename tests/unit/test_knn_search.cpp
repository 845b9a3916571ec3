// The CPU nearest-landmark search against a brute-force search, ties broken by index.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "core/knn/landmark_tiles.h"
#include "core/knn/nearest_blocks.h"
#include "core/knn/nearest_search.h"
#include "embedsom_data.h"

namespace sepal {
namespace {

void expectLikeBruteForce(const std::vector<float>& x, const std::vector<float>& l, size_t d,
                          size_t k) {
    const size_t n = x.size() / d, g = l.size() / d;
    std::vector<uint32_t> idx(n * k);
    std::vector<float> sq(n * k);
    makeCpuNearestSearch()->search(x.data(), n, l.data(), g, d, k, idx.data(), sq.data());
    for (size_t p = 0; p < n; ++p) {
        std::vector<std::pair<float, uint32_t>> all(g);
        for (size_t j = 0; j < g; ++j) {
            float a = 0.0f;
            for (size_t t = 0; t < d; ++t)
                a += (x[p * d + t] - l[j * d + t]) * (x[p * d + t] - l[j * d + t]);
            all[j] = {a, static_cast<uint32_t>(j)};
        }
        std::sort(all.begin(), all.end());
        for (size_t i = 0; i < k; ++i) {
            ASSERT_NEAR(sq[p * k + i], all[i].first, 1e-5f * (1.0f + all[i].first))
                << "point " << p << " rank " << i;
            if (i > 0) ASSERT_LE(sq[p * k + i - 1], sq[p * k + i]);
            // Away from near-ties the neighbours are the same landmarks in the same order.
            const bool clear = (i == 0 || all[i].first - all[i - 1].first > 1e-4f) &&
                               (i + 1 >= g || all[i + 1].first - all[i].first > 1e-4f);
            if (clear) ASSERT_EQ(idx[p * k + i], all[i].second) << "point " << p << " rank " << i;
        }
    }
}

TEST(KnnSearch, TheNearestAloneIsTheSmallestFirstAndNeverNan) {
    // k = 1 (the trainers' winner search) has a path of its own: the smallest distance, NaN
    // counted as infinity, the lowest index among equals; rows of every length up to 40 (whole
    // vectors and tails), ties, NaN first and last, all NaN, infinities.
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> small(0, 5);
    const float nan = std::nanf(""), inf = INFINITY;
    for (size_t g = 1; g <= 40; ++g)
        for (int trial = 0; trial < 60; ++trial) {
            std::vector<float> dist(g);
            for (float& v : dist) v = float(small(rng));  // many ties
            if (trial % 4 == 1) dist[0] = nan;
            if (trial % 5 == 2) dist[g - 1] = nan;
            if (trial % 7 == 3) std::fill(dist.begin(), dist.end(), nan);
            if (trial % 9 == 4) std::fill(dist.begin(), dist.end(), inf);
            if (trial % 11 == 5) dist[g / 2] = nan, dist[0] = inf;
            size_t best = 0;
            float bestValue = std::isnan(dist[0]) ? inf : dist[0];
            for (size_t j = 1; j < g; ++j)
                if (dist[j] < bestValue) best = j, bestValue = dist[j];
            uint32_t idx = 99;
            float sq = -1.0f;
            selectNearest(dist.data(), g, 1, &idx, &sq);
            ASSERT_EQ(idx, best) << "g " << g << " trial " << trial;
            ASSERT_EQ(sq, bestValue) << "g " << g << " trial " << trial;
        }
}

TEST(KnnSearch, EverySelectionKernelPicksWhatTheInsertionBufferPicks) {
    // The vector kernels bound the k-th distance, then sort the few candidates under it; they
    // must give the sorted buffer's answer (ascending, ties by index, NaN as infinity) through
    // ties, NaN, infinities, crowds of equal values (too many candidates) and row lengths that
    // leave tails after whole registers.
    std::mt19937 rng(12);
    std::uniform_int_distribution<int> few(0, 9);
    std::uniform_real_distribution<float> spread(0.0f, 100.0f);
    const float nan = std::nanf(""), inf = INFINITY;
    size_t rows = 0;
    for (size_t g : {32, 33, 47, 64, 100, 257, 512, 600, 1100})
        for (size_t k : {2, 5, 8, 15, 16, 17, 31, 33, 48, 64, 65})
            for (int trial = 0; trial < 12; ++trial) {
                if (k > g) continue;                   // selectNearest needs k <= g
                if (2 * k > g && trial > 0) continue;  // the fast paths' limit; check one row
                std::vector<float> dist(g);
                for (float& v : dist) v = trial % 2 ? float(few(rng)) : spread(rng);
                if (trial % 3 == 1) dist[g / 3] = nan, dist[g - 1] = nan;
                if (trial % 4 == 2) dist[0] = inf, dist[g / 2] = inf;
                if (trial == 5) std::fill(dist.begin(), dist.end(), 1.0f);
                if (trial == 7) std::fill(dist.begin(), dist.begin() + long(g / 2), nan);
                std::vector<uint32_t> want(k), got(k);
                std::vector<float> wantSq(k), gotSq(k);
                selectNearestWith(SelectKernel::Insertion, dist.data(), g, k, want.data(),
                                  wantSq.data());
                for (SelectKernel kernel : {SelectKernel::Avx2, SelectKernel::Avx512}) {
                    if (!selectKernelAvailable(kernel)) continue;
                    std::fill(got.begin(), got.end(), 9999u);
                    selectNearestWith(kernel, dist.data(), g, k, got.data(), gotSq.data());
                    ASSERT_EQ(got, want) << "kernel " << int(kernel) << " g " << g << " k " << k
                                         << " trial " << trial;
                    for (size_t i = 0; i < k; ++i)
                        ASSERT_TRUE(gotSq[i] == wantSq[i] ||
                                    (std::isnan(gotSq[i]) && std::isnan(wantSq[i])))
                            << "kernel " << int(kernel) << " g " << g << " k " << k;
                }
                ++rows;
            }
    EXPECT_GT(rows, 500u);
}

TEST(KnnSearch, GroupNearestIsTheFirstOfTheStoredDistancesRow) {
    // groupNearest keeps the smallest inside the kernel: it must pick what selectNearest (k = 1)
    // picks from groupDistances' row, through ties (integer grids), NaN in a point or a
    // landmark, and landmark counts that leave padding columns in the last block.
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> small(0, 3);
    const float nan = std::nanf("");
    for (size_t g : {1, 7, 31, 32, 33, 64, 100}) {
        for (size_t d : {1, 3, 22}) {
            std::vector<float> l(g * d), x(kPointGroup * d);
            for (float& v : l) v = float(small(rng));
            for (float& v : x) v = float(small(rng));
            if (g > 3) l[2 * d] = nan;  // landmark 2 is NaN in its first dimension
            x[d] = nan;                 // point 1 is NaN: every distance is NaN
            LandmarkTiles tiles;
            tiles.build(l.data(), g, d);
            const float* rows[kPointGroup];
            for (size_t p = 0; p < kPointGroup; ++p) rows[p] = x.data() + p * d;
            std::vector<float> dist(kPointGroup * tiles.gp);
            groupDistances(rows, tiles, dist.data());
            uint32_t idx[kPointGroup];
            float sq[kPointGroup];
            groupNearest(rows, tiles, idx, sq);
            for (size_t p = 0; p < kPointGroup; ++p) {
                uint32_t want = 99;
                float wantSq = -1.0f;
                selectNearest(dist.data() + p * tiles.gp, g, 1, &want, &wantSq);
                EXPECT_EQ(idx[p], want) << "g " << g << " d " << d << " point " << p;
                EXPECT_EQ(sq[p], wantSq) << "g " << g << " d " << d << " point " << p;
            }
            EXPECT_EQ(idx[1], 0u) << "an all-NaN row gives the first landmark";
            EXPECT_EQ(sq[1], INFINITY);
        }
    }
}

TEST(KnnSearch, MatchesBruteForceOnRandomData) {
    for (size_t d : {1, 3, 16, 33}) {
        const auto x = test::randomPoints(203, d, 11 + d);
        const auto l = test::randomPoints(77, d, 99 + d);
        expectLikeBruteForce(x, l, d, 1);
        expectLikeBruteForce(x, l, d, 9);
        expectLikeBruteForce(x, l, d, 77);
        // A handful of points takes the untransposed path.
        expectLikeBruteForce(std::vector<float>(x.begin(), x.begin() + 3 * d), l, d, 5);
    }
}

TEST(KnnSearch, MatchesBruteForceWithManyLandmarks) {
    const auto x = test::randomPoints(64, 6, 21);
    const auto l = test::randomPoints(1024, 6, 22, 8);
    for (size_t k : {1, 17, 33, 64, 65, 300}) expectLikeBruteForce(x, l, 6, k);
}

TEST(KnnSearch, EqualDistancesComeInIndexOrder) {
    // Integer coordinates make distances exact: many ties, which must come by landmark index.
    std::mt19937 rng(5);
    const size_t d = 3, g = 70, n = 50, k = 20;
    std::vector<float> l(g * d), x(n * d);
    for (auto& v : l) v = static_cast<float>(rng() % 3);
    for (auto& v : x) v = static_cast<float>(rng() % 3);
    std::vector<uint32_t> idx(n * k);
    std::vector<float> sq(n * k);
    makeCpuNearestSearch()->search(x.data(), n, l.data(), g, d, k, idx.data(), sq.data());
    for (size_t p = 0; p < n; ++p) {
        std::vector<std::pair<float, uint32_t>> all(g);
        for (size_t j = 0; j < g; ++j) {
            float a = 0.0f;
            for (size_t t = 0; t < d; ++t)
                a += (x[p * d + t] - l[j * d + t]) * (x[p * d + t] - l[j * d + t]);
            all[j] = {a, static_cast<uint32_t>(j)};
        }
        std::sort(all.begin(), all.end());
        for (size_t i = 0; i < k; ++i) {
            EXPECT_EQ(idx[p * k + i], all[i].second) << "point " << p << " rank " << i;
            EXPECT_EQ(sq[p * k + i], all[i].first);
        }
    }
}

}  // namespace
}  // namespace sepal
