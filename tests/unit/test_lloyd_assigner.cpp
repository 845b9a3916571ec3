// Lloyd's bounded assignment (LloydAssigner) and the block kernel under it: the nearest centres
// and distances equal a full search bit for bit, iteration after iteration, while the bounds
// skip most blocks on clustered data.

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/knn/lloyd_assigner.h"
#include "core/knn/nearest_blocks.h"
#include "core/knn/nearest_search.h"
#include "core/train/init.h"
#include "core/train/lloyd_trainer.h"
#include "train_fixtures.h"

namespace sepal {
namespace {

/// The full search's answer for every point: the k = 1 search of the CPU.
void fullSearch(const std::vector<float>& x, size_t d, const std::vector<float>& centres,
                std::vector<uint32_t>& idx, std::vector<float>& sq) {
    const size_t n = x.size() / d, g = centres.size() / d;
    idx.assign(n, 0);
    sq.assign(n, 0.0f);
    makeCpuNearestSearch()->search(x.data(), n, centres.data(), g, d, 1, idx.data(), sq.data());
}

/// Lloyd's move of the centres to their points' means (empty centres stay).
void moveToMeans(const std::vector<float>& x, size_t d, const std::vector<uint32_t>& idx,
                 std::vector<float>& centres) {
    const size_t g = centres.size() / d;
    std::vector<double> sums(g * d, 0.0);
    std::vector<size_t> counts(g, 0);
    for (size_t i = 0; i < idx.size(); ++i) {
        bool finite = true;  // as training, which leaves rows with missing values out
        for (size_t t = 0; t < d; ++t) finite = finite && std::isfinite(x[i * d + t]);
        if (!finite) continue;
        for (size_t t = 0; t < d; ++t) sums[idx[i] * d + t] += x[i * d + t];
        ++counts[idx[i]];
    }
    for (size_t j = 0; j < g; ++j)
        if (counts[j] > 0)
            for (size_t t = 0; t < d; ++t)
                centres[j * d + t] = float(sums[j * d + t] / double(counts[j]));
}

/// Runs Lloyd's iterations with the assigner and checks each against a full search; returns the
/// share of blocks the last iteration skipped.
double expectLikeFullSearch(const std::vector<float>& x, size_t d, std::vector<float> centres,
                            int iterations, const char* what) {
    const size_t n = x.size() / d, g = centres.size() / d;
    LloydAssigner assigner(x.data(), n, d);
    std::vector<uint32_t> idx(n), want;
    std::vector<float> sq(n), wantSq;
    for (int it = 0; it < iterations; ++it) {
        assigner.assign(centres.data(), g, idx.data(), sq.data());
        fullSearch(x, d, centres, want, wantSq);
        for (size_t i = 0; i < n; ++i) {
            EXPECT_EQ(idx[i], want[i]) << what << ": iteration " << it << ", point " << i;
            // Equal bits, NaN as +infinity on both sides.
            EXPECT_EQ(sq[i], wantSq[i]) << what << ": iteration " << it << ", point " << i;
            if (::testing::Test::HasFailure()) return 0.0;
        }
        moveToMeans(x, d, want, centres);
    }
    return assigner.skippedShare();
}

std::vector<float> sampleCentres(const std::vector<float>& x, size_t d, size_t g, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> pick(0, x.size() / d - 1);
    std::vector<float> c(g * d);
    for (size_t j = 0; j < g; ++j) {
        const size_t i = pick(rng);
        for (size_t t = 0; t < d; ++t) c[j * d + t] = x[i * d + t];
    }
    return c;
}

TEST(LloydAssigner, EqualsTheFullSearchAndSkipsMostBlocksOnClusters) {
    // 512 centres in 22 dimensions, as the default recipe trains them.
    const auto x = test::blobs(6000, 22, 40, 31);
    const double skipped = expectLikeFullSearch(x, 22, sampleCentres(x, 22, 512, 2), 8, "blobs");
    // The bounds must do their work, or the assigner is only a slower search.
    EXPECT_GT(skipped, 0.5);
}

TEST(LloydAssigner, EqualsTheFullSearchThroughTiesDuplicatesAndPartBlocks) {
    // Integer points and centres: many distances tie, and duplicated centres tie exactly; the
    // lower index must win as in the full search. Centre counts below, at and past a block.
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> small(0, 3);
    for (size_t g : {1, 5, 32, 33, 70, 129}) {
        for (size_t d : {1, 3, 9}) {
            std::vector<float> x(700 * d);
            for (float& v : x) v = float(small(rng));
            auto centres = sampleCentres(x, d, g, g + d);
            if (g > 3) std::copy_n(centres.begin(), d, centres.begin() + 3 * d);  // 3 = 0
            expectLikeFullSearch(x, d, centres, 5, "integer grid");
        }
    }
}

TEST(LloydAssigner, PointsWithMissingValuesGoToTheFirstCentreAsInTheFullSearch) {
    auto x = test::blobs(900, 4, 6, 12);
    x[5 * 4 + 1] = std::nanf("");
    x[600 * 4] = INFINITY;
    expectLikeFullSearch(x, 4, sampleCentres(test::blobs(900, 4, 6, 12), 4, 40, 3), 5, "NaN");
}

TEST(LloydAssigner, TheThreadCountChangesNothing) {
    const auto x = test::blobs(4000, 8, 12, 5);
    const auto centres = sampleCentres(x, 8, 100, 9);
    std::vector<std::vector<uint32_t>> got;
    for (int threads : {1, 2}) {
        const int before = omp_get_max_threads();
        omp_set_num_threads(threads);
        LloydAssigner assigner(x.data(), 4000, 8);
        auto c = centres;
        std::vector<uint32_t> idx(4000), all;
        std::vector<float> sq(4000);
        for (int it = 0; it < 4; ++it) {
            assigner.assign(c.data(), 100, idx.data(), sq.data());
            all.insert(all.end(), idx.begin(), idx.end());
            moveToMeans(x, 8, idx, c);
        }
        omp_set_num_threads(before);
        got.push_back(all);
    }
    EXPECT_EQ(got[0], got[1]);
}

TEST(LloydAssigner, LloydStepsWithItGiveTheSameLandmarksAsWithout) {
    const auto x = test::blobs(5000, 11, 20, 41);
    const auto data = test::view(x, 11);
    auto search = makeCpuNearestSearch();
    LandmarkModel plain;
    InitParams ip;
    ip.method = InitMethod::Sample;
    ip.g = 256;
    initModel(plain, data, ip);
    LandmarkModel bounded = plain;
    // The CPU search offers the bounded assignment where the block kernel is fast; the test
    // runs it either way.
    const auto offered = search->lloydAssigner(data.points, data.n, data.d);
    EXPECT_EQ(offered != nullptr, fastBlockKernel());
    LloydAssigner own(data.points, data.n, data.d);
    LloydAssigner* assigner = offered ? offered.get() : &own;
    for (int it = 0; it < 10; ++it) {
        const double a = lloydStep(plain, data, *search);
        const double b = lloydStep(bounded, data, *search, assigner);
        EXPECT_EQ(a, b) << "iteration " << it;
    }
    EXPECT_EQ(plain.high, bounded.high);
}

TEST(NearestBlocks, ListedBlocksAndColumnIndicesAsABruteForceFindsThem) {
    // Some blocks only, columns standing for shuffled landmark indices: the winner is the
    // smallest distance of the listed blocks, ties by the lower landmark index, and each listed
    // block's minimum is reported.
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> small(0, 2);
    const size_t g = 100, d = 5, gp = 128;
    std::vector<float> l(g * d), x(kPointGroup * d);
    for (float& v : l) v = float(small(rng));
    for (float& v : x) v = float(small(rng));
    LandmarkTiles tiles;
    tiles.build(l.data(), g, d);
    std::vector<uint32_t> column(gp, UINT32_MAX);
    for (size_t j = 0; j < g; ++j) column[j] = uint32_t((j * 37) % g);  // a permutation
    const float* rows[kPointGroup];
    for (size_t p = 0; p < kPointGroup; ++p) rows[p] = x.data() + p * d;
    for (const std::vector<uint32_t>& blocks :
         {std::vector<uint32_t>{0, 1, 2, 3}, {1, 3}, {3}, {0, 2}}) {
        uint32_t idx[kPointGroup];
        float sq[kPointGroup], blockMin[kPointGroup * 4];
        groupNearestInBlocks(rows, tiles, {blocks.data(), blocks.size(), column.data()}, idx, sq,
                             blockMin);
        for (size_t p = 0; p < kPointGroup; ++p) {
            float best = INFINITY;
            uint32_t bestIndex = UINT32_MAX;
            for (size_t b = 0; b < blocks.size(); ++b) {
                float smallest = INFINITY;
                for (size_t j = blocks[b] * 32; j < blocks[b] * 32 + 32 && j < g; ++j) {
                    float a = 0.0f;
                    for (size_t t = 0; t < d; ++t) {
                        const float e = x[p * d + t] - l[j * d + t];
                        a += e * e;
                    }
                    if (a < best || (a == best && column[j] < bestIndex))
                        best = a, bestIndex = column[j];
                    smallest = std::min(smallest, a);
                }
                EXPECT_EQ(blockMin[p * blocks.size() + b], smallest) << "block " << blocks[b];
            }
            EXPECT_EQ(idx[p], bestIndex) << "point " << p << ", " << blocks.size() << " blocks";
            EXPECT_EQ(sq[p], best) << "point " << p;
        }
    }
}

}  // namespace
}  // namespace sepal
