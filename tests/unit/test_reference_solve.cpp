// solveLikeReference, which runs four pairs' O(d) sums side by side and may take the pair
// table's powers, against the reference's own loop, a pair at a time (solveInPairGroups<1>):
// the same bits, whatever the dimensions, the list's length, adjust, and the pairs the reference
// skips (equal landmarks, landmarks on one 2D spot).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/embedsom/pair_constants.h"
#include "core/embedsom/reference_solve.h"

namespace sepal {
namespace {

TEST(ReferenceSolve, PairsSideBySideAndTablePowersGiveThePairByPairBits) {
    const size_t g = 64;
    std::mt19937 rng(2026);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    int compared = 0, solved = 0;
    for (const size_t d : {3, 16, 37}) {
        LandmarkModel model;
        model.resize(g, d);
        for (float& v : model.high) v = normal(rng);
        for (float& v : model.low) v = 4.0f * normal(rng);
        // Landmarks 0 and 1 equal (sqd 0), 2 and 3 on one 2D spot (hp 0): pairs to skip.
        for (size_t t = 0; t < d; ++t) model.high[d + t] = model.high[t];
        model.low[6] = model.low[4];
        model.low[7] = model.low[5];
        model.touch();
        for (const float adjust : {0.0f, 1.0f, 3.0f}) {
            PairConstants table;
            table.update(model, adjust);
            // Then three landmarks moved in 2D, as a drag moves them: the table's update
            // computes their pairs again, in either order of the pair.
            for (const bool dragged : {false, true}) {
                if (dragged) {
                    for (const size_t j : {10, 20, 30}) model.low[2 * j] += 0.5f * normal(rng);
                    model.touch();
                    table.update(model, adjust);
                }
                for (const int topn : {4, 7, 16, 33}) {
                    for (int point = 0; point < 20; ++point) {
                        std::vector<float> x(d), score(topn);
                        for (float& v : x) v = normal(rng);
                        std::vector<uint32_t> idx(g);
                        for (uint32_t j = 0; j < g; ++j) idx[j] = j;
                        std::shuffle(idx.begin() + 4, idx.end(), rng);
                        // Every other point lists the pairs to skip first.
                        if (point % 2) std::shuffle(idx.begin(), idx.end(), rng);
                        for (float& s : score) s = unit(rng);
                        float pairByPair[2], grouped[2], tabled[2];
                        const bool okPairByPair =
                            solveInPairGroups<1>(x.data(), model, idx.data(), score.data(), topn,
                                                 adjust, pairByPair, nullptr);
                        const bool okGrouped = solveLikeReference(
                            x.data(), model, idx.data(), score.data(), topn, adjust, grouped);
                        const bool okTabled =
                            solveLikeReference(x.data(), model, idx.data(), score.data(), topn,
                                               adjust, tabled, &table);
                        SCOPED_TRACE("d " + std::to_string(d) + " adjust " +
                                     std::to_string(adjust) + " topn " + std::to_string(topn) +
                                     " point " + std::to_string(point));
                        EXPECT_EQ(okGrouped, okPairByPair);
                        EXPECT_EQ(okTabled, okPairByPair);
                        EXPECT_EQ(std::memcmp(grouped, pairByPair, sizeof pairByPair), 0)
                            << grouped[0] << " " << grouped[1] << " against " << pairByPair[0]
                            << " " << pairByPair[1];
                        EXPECT_EQ(std::memcmp(tabled, pairByPair, sizeof pairByPair), 0)
                            << tabled[0] << " " << tabled[1] << " against " << pairByPair[0] << " "
                            << pairByPair[1];
                        ++compared;
                        solved += okPairByPair;
                    }
                }
            }
        }
    }
    EXPECT_EQ(compared, 3 * 3 * 2 * 4 * 20);
    EXPECT_GT(solved, compared / 2);  // the comparisons are of solutions, not of failures
}

}  // namespace
}  // namespace sepal
