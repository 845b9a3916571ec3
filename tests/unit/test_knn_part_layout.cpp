// The k-NN graph's part layout (the GPU's candidates leave out whole parts by its balls): every
// point once, each part from a whole tile in index order, and balls that hold their rows
// with the rows' rounding to spare (the bounds of the candidates and of the ranks' whole parts).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "core/knn/knn_part_layout.h"

namespace sepal {
namespace {

/// Clustered rows of `stride` columns (the last ones zero, as padded split rows are), some
/// unusable, with each row's nearest of `parts` centres as its part (parts: unusable).
struct LabelledRows {
    size_t n = 0;
    int stride = 0;
    std::vector<float> rows, norm2;
    std::vector<uint32_t> part;
    size_t parts = 0;
};

std::vector<uint32_t> nearestOf(const LabelledRows& r, size_t labels, std::mt19937& rng) {
    std::vector<size_t> seeds(labels);
    for (size_t& s : seeds) s = rng() % r.n;
    std::vector<uint32_t> label(r.n, uint32_t(labels));
    for (size_t i = 0; i < r.n; ++i) {
        if (!std::isfinite(r.norm2[i])) continue;
        double best = std::numeric_limits<double>::infinity();
        for (size_t j = 0; j < labels; ++j) {
            double s = 0;
            for (int c = 0; c < r.stride; ++c) {
                const double t = double(r.rows[i * size_t(r.stride) + size_t(c)]) -
                                 double(r.rows[seeds[j] * size_t(r.stride) + size_t(c)]);
                s += t * t;
            }
            if (s < best) best = s, label[i] = uint32_t(j);
        }
    }
    return label;
}

LabelledRows labelledRows(size_t n, int d, int stride, size_t parts, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    LabelledRows r;
    r.n = n;
    r.stride = stride;
    r.parts = parts;
    std::vector<float> centres(6 * size_t(d));
    for (float& c : centres) c = 8.0f * normal(rng);
    r.rows.assign(n * size_t(stride), 0.0f);
    r.norm2.assign(n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        const size_t c = rng() % 6;
        double s = 0;
        for (int k = 0; k < d; ++k) {
            const float v = centres[c * size_t(d) + size_t(k)] + normal(rng);
            r.rows[i * size_t(stride) + size_t(k)] = v;
            s += double(v) * double(v);
        }
        r.norm2[i] = i % 97 == 5 ? std::numeric_limits<float>::infinity() : float(s);
    }
    r.part = nearestOf(r, parts, rng);
    return r;
}

double distance(const float* a, const float* b, int stride) {
    double s = 0;
    for (int c = 0; c < stride; ++c) {
        const double t = double(a[c]) - double(b[c]);
        s += t * t;
    }
    return std::sqrt(s);
}

void expectLayoutHolds(const LabelledRows& r, const KnnPartLayout& layout) {
    const size_t all = r.parts + 1, stride = size_t(r.stride);
    ASSERT_EQ(layout.parts(), int(all));
    // The widening covers eight times the rows' rounding (2^-24 of the largest usable row).
    double reach2 = 0;
    for (size_t i = 0; i < r.n; ++i)
        if (std::isfinite(r.norm2[i])) reach2 = std::max(reach2, double(r.norm2[i]));
    EXPECT_GE(layout.widen, 8 * 0x1p-24 * std::sqrt(reach2));
    ASSERT_EQ(layout.partTiles.size(), all + 1);
    ASSERT_EQ(layout.positions(), size_t(layout.partTiles[all]) * kKnnPartTile);
    // Every point once, in its own part's tiles, in index order, padding last; partCells counts
    // them.
    std::vector<int> seen(r.n, 0);
    for (size_t p = 0; p < all; ++p) {
        const size_t from = size_t(layout.partTiles[p]) * kKnnPartTile;
        const size_t to = size_t(layout.partTiles[p + 1]) * kKnnPartTile;
        bool padding = false;
        for (size_t pos = from; pos < to; ++pos) {
            const uint32_t i = layout.order[pos];
            if (i == kNoPoint) {
                padding = true;
                continue;
            }
            ASSERT_FALSE(padding) << "a point after padding at " << pos;
            ASSERT_LT(i, r.n);
            ++seen[i];
            ASSERT_EQ(r.part[i], p) << "point " << i << " at " << pos;
            if (pos == from || layout.order[pos - 1] == kNoPoint) continue;
            ASSERT_LT(layout.order[pos - 1], i) << "at " << pos;
        }
        const size_t cells =
            size_t(std::count_if(layout.order.begin() + long(from), layout.order.begin() + long(to),
                                 [](uint32_t i) { return i != kNoPoint; }));
        EXPECT_EQ(layout.partCells[p], cells) << "part " << p;
        EXPECT_LT(to - from - cells, size_t(kKnnPartTile))
            << "part " << p << " has a whole tile of padding";
    }
    for (size_t i = 0; i < r.n; ++i) ASSERT_EQ(seen[i], 1) << "point " << i;
    // Each usable row inside its part's ball and its block's, with the widening to spare (so its
    // exact values are inside too); the blocks' parts. The kernels' bounds follow by the
    // triangle inequality: the candidates leave out a part whose ball lies farther from the
    // block's than a threshold, and the ranks count a part whole within D + R + widen.
    const size_t blocks = (layout.positions() + kKnnBlockQueries - 1) / kKnnBlockQueries;
    ASSERT_EQ(layout.blockRadius.size(), blocks);
    std::vector<size_t> partOf(layout.positions());
    for (size_t p = 0; p < all; ++p)
        for (int t = layout.partTiles[p]; t < layout.partTiles[p + 1]; ++t)
            for (int e = 0; e < kKnnPartTile; ++e) partOf[size_t(t) * kKnnPartTile + size_t(e)] = p;
    std::vector<int> usableInPart(all, 0);
    for (size_t pos = 0; pos < layout.positions(); ++pos) {
        const size_t b = pos / kKnnBlockQueries;
        if (pos % kKnnBlockQueries == 0) ASSERT_EQ(layout.blockPart[b], int(partOf[pos])) << b;
        const uint32_t i = layout.order[pos];
        if (i == kNoPoint || !std::isfinite(r.norm2[i])) continue;
        ++usableInPart[partOf[pos]];
        const float* row = r.rows.data() + i * stride;
        EXPECT_LE(
            distance(row, layout.partCentre.data() + partOf[pos] * stride, r.stride) + layout.widen,
            layout.partRadius[partOf[pos]]);
        EXPECT_LE(distance(row, layout.blockCentre.data() + b * stride, r.stride) + layout.widen,
                  layout.blockRadius[b]);
    }
    for (size_t p = 0; p < all; ++p)
        EXPECT_EQ(layout.partRadius[p] < 0, usableInPart[p] == 0) << "part " << p;
}

TEST(KnnPartLayout, EveryPointOnceInWholeTilesInsideItsBalls) {
    for (const auto& [n, d, stride, parts] :
         {std::tuple<size_t, int, int, size_t>{6000, 20, 32, 12}, {5000, 9, 16, 7}}) {
        const LabelledRows r = labelledRows(n, d, stride, parts, uint32_t(n));
        expectLayoutHolds(
            r, layOutKnnParts({r.rows.data(), r.norm2.data(), r.n, r.stride}, r.part, r.parts));
    }
}

TEST(KnnPartLayout, OnePointAndNoUsableRow) {
    // A single usable row: one position of a whole tile, a ball of its rounding's radius.
    const std::vector<float> one = {3.0f, -4.0f};
    const std::vector<float> norm2 = {25.0f};
    const KnnPartLayout layout = layOutKnnParts({one.data(), norm2.data(), 1, 2}, {0}, 1);
    ASSERT_EQ(layout.positions(), size_t(kKnnPartTile));
    EXPECT_EQ(layout.order[0], 0u);
    EXPECT_EQ(layout.partCentre[0], 3.0f);
    EXPECT_GT(layout.partRadius[0], 0.0f);
    EXPECT_LT(layout.partRadius[0], 1e-5f);
    EXPECT_EQ(layout.partRadius[1], -1.0f) << "the unusable rows' part holds none";
    // Only unusable rows: every ball empty.
    const std::vector<float> none = {INFINITY, INFINITY};
    const std::vector<float> rows = {1.0f, 2.0f, 3.0f, 4.0f};
    const KnnPartLayout empty = layOutKnnParts({rows.data(), none.data(), 2, 2}, {1, 1}, 1);
    EXPECT_EQ(empty.partRadius[0], -1.0f);
    EXPECT_EQ(empty.partRadius[1], -1.0f);
    EXPECT_EQ(empty.blockRadius[0], -1.0f);
    EXPECT_EQ(empty.blockPart[0], 1);
}

}  // namespace
}  // namespace sepal
