// solveLikeReference, which runs a few pairs' O(d) sums side by side and may take the pair
// table's powers, against the reference's steps written plainly, one pair after another: the
// same bits, whatever the dimensions, the list's length, adjust, and the pairs the reference
// skips (equal landmarks, landmarks on one 2D spot).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/embedsom/pair_constants.h"
#include "core/embedsom/reference_solve.h"

namespace sepal {
namespace {

/// Steps 3-4 of embedsom.md in the reference's float arithmetic and order, a pair at a time
/// (the oracle).
bool plainReferenceSolve(const float* x, const LandmarkModel& model, const uint32_t* idx,
                         const float* score, int topn, float adjust, float* y) {
    const size_t d = model.dim;
    const float* low = model.low.data();
    float a00 = 0.0f, a01 = 0.0f, a11 = 0.0f, b0 = 0.0f, b1 = 0.0f;
    for (int i = 0; i < topn; ++i) {
        const uint32_t u = idx[i];
        const float gs = score[i] * 1e-5f;
        a00 += gs;
        a11 += gs;
        b0 += gs * low[2 * u];
        b1 += gs * low[2 * u + 1];
    }
    for (int i = 0; i < topn; ++i) {
        for (int j = i + 1; j < topn; ++j) {
            const uint32_t u = idx[i], v = idx[j];
            const float* lu = model.highRow(u);
            const float* lv = model.highRow(v);
            float sqd = 0.0f, dot = 0.0f;
            for (size_t t = 0; t < d; ++t) {
                const float e = lv[t] - lu[t];
                sqd += e * e;
                dot += (x[t] - lu[t]) * e;
            }
            if (sqd == 0.0f) continue;
            const float D = dot / sqd;
            const float hx = low[2 * v] - low[2 * u], hy = low[2 * v + 1] - low[2 * u + 1];
            const float hp = hx * hx + hy * hy;
            if (hp < 1e-10f) continue;
            const float s = score[i] * score[j] * std::pow(1.0f + hp, -adjust) *
                            std::exp(-(D - 0.5f) * (D - 0.5f));
            const float sh = s / hp;
            a00 += sh * hx * hx;
            a01 += sh * hx * hy;
            a11 += sh * hy * hy;
            const float f = s * (D + (hx * low[2 * u] + hy * low[2 * u + 1]) / hp);
            b0 += f * hx;
            b1 += f * hy;
        }
    }
    const float det = a00 * a11 - a01 * a01;
    y[0] = (b0 * a11 - b1 * a01) / det;
    y[1] = (a00 * b1 - a01 * b0) / det;
    return std::isfinite(y[0]) && std::isfinite(y[1]);
}

TEST(ReferenceSolve, PairsSideBySideAndTablePowersGiveThePlainLoopsBits) {
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
                        float plain[2], grouped[2], tabled[2];
                        const bool okPlain = plainReferenceSolve(x.data(), model, idx.data(),
                                                                 score.data(), topn, adjust, plain);
                        const bool okGrouped = solveLikeReference(
                            x.data(), model, idx.data(), score.data(), topn, adjust, grouped);
                        const bool okTabled =
                            solveLikeReference(x.data(), model, idx.data(), score.data(), topn,
                                               adjust, tabled, &table);
                        SCOPED_TRACE("d " + std::to_string(d) + " adjust " +
                                     std::to_string(adjust) + " topn " + std::to_string(topn) +
                                     " point " + std::to_string(point));
                        EXPECT_EQ(okGrouped, okPlain);
                        EXPECT_EQ(okTabled, okPlain);
                        EXPECT_EQ(std::memcmp(grouped, plain, sizeof plain), 0)
                            << grouped[0] << " " << grouped[1] << " against " << plain[0] << " "
                            << plain[1];
                        EXPECT_EQ(std::memcmp(tabled, plain, sizeof plain), 0)
                            << tabled[0] << " " << tabled[1] << " against " << plain[0] << " "
                            << plain[1];
                        ++compared;
                        solved += okPlain;
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
