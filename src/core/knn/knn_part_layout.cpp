// The layout of a k-NN graph's parts (knn_part_layout.h): counting sorts into whole tiles and the
// balls of the parts and of the blocks of queries.
//
// Why the balls bound the exact distance: a row stands for exact values x with |a - x| <= e,
// e = rounding * reach (reach: the largest |row|; for the split rows a = fl(x - mean), each
// value moved by at most 2^-24 |a_c|); a ball's radius is measured in double from its float
// centre and widened by a relative 10^-6 and by 8 e, so |x - y| >= |c - c'| - r - r' for x in one
// ball and y in the other. The kernel's float sums and subtractions are covered there by
// relative slack.

#include "core/knn/knn_part_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sepal {
namespace {

/// The ball around the usable rows at positions [from, to) of `order`: the centre (stride
/// floats) into `centre`, the widened radius returned (-1: no usable row).
float ballOf(const KnnLayoutRows& in, const std::vector<uint32_t>& order, size_t from, size_t to,
             double widen, float* centre) {
    const size_t stride = size_t(in.stride);
    std::vector<double> sum(stride, 0.0);
    size_t rows = 0;
    const auto usable = [&](size_t pos) {
        return order[pos] != kNoPoint && std::isfinite(in.norm2[order[pos]]);
    };
    for (size_t pos = from; pos < to; ++pos) {
        if (!usable(pos)) continue;
        const float* a = in.rows + size_t(order[pos]) * stride;
        for (size_t c = 0; c < stride; ++c) sum[c] += a[c];
        ++rows;
    }
    std::fill(centre, centre + stride, 0.0f);
    if (rows == 0) return -1.0f;
    for (size_t c = 0; c < stride; ++c) centre[c] = float(sum[c] / double(rows));
    double widest = 0;
    for (size_t pos = from; pos < to; ++pos) {
        if (!usable(pos)) continue;
        const float* a = in.rows + size_t(order[pos]) * stride;
        double s = 0;
        for (size_t c = 0; c < stride; ++c) {
            const double t = double(a[c]) - double(centre[c]);
            s += t * t;
        }
        widest = std::max(widest, s);
    }
    const double radius = std::sqrt(widest) * (1 + 1e-6) + widen;
    return std::nextafter(float(radius), std::numeric_limits<float>::infinity());
}

}  // namespace

KnnPartLayout layOutKnnParts(const KnnLayoutRows& in, const std::vector<uint32_t>& part,
                             size_t parts) {
    const size_t n = in.n, stride = size_t(in.stride);
    double reach2 = 0;
    for (size_t i = 0; i < n; ++i)
        if (std::isfinite(in.norm2[i])) reach2 = std::max(reach2, double(in.norm2[i]));
    // norm2 is rounded to float: a relative 2^-20 more covers it.
    const double widen = 8 * in.rounding * std::sqrt(reach2) * (1 + 0x1p-20);
    // A counting sort by part, each part's points in index order.
    const size_t all = parts + 1;
    KnnPartLayout layout;
    layout.widen = widen;
    layout.partCells.assign(all, 0);
    for (uint32_t p : part) ++layout.partCells[p];
    layout.partTiles.assign(all + 1, 0);
    for (size_t p = 0; p < all; ++p)
        layout.partTiles[p + 1] =
            layout.partTiles[p] + int((layout.partCells[p] + kKnnPartTile - 1) / kKnnPartTile);
    layout.order.assign(size_t(layout.partTiles[all]) * kKnnPartTile, kNoPoint);
    std::vector<size_t> next(all);
    for (size_t p = 0; p < all; ++p) next[p] = size_t(layout.partTiles[p]) * kKnnPartTile;
    for (size_t i = 0; i < n; ++i) layout.order[next[part[i]]++] = uint32_t(i);
    // The balls, on all cores.
    layout.partCentre.assign(all * stride, 0.0f);
    layout.partRadius.assign(all, -1.0f);
#pragma omp parallel for schedule(dynamic)
    for (long long p = 0; p < static_cast<long long>(all); ++p)
        layout.partRadius[size_t(p)] =
            ballOf(in, layout.order, size_t(layout.partTiles[size_t(p)]) * kKnnPartTile,
                   size_t(layout.partTiles[size_t(p) + 1]) * kKnnPartTile, widen,
                   layout.partCentre.data() + size_t(p) * stride);
    const size_t positions = layout.order.size();
    const size_t blocks = (positions + kKnnBlockQueries - 1) / kKnnBlockQueries;
    layout.blockCentre.assign(blocks * stride, 0.0f);
    layout.blockRadius.assign(blocks, -1.0f);
    layout.blockPart.assign(blocks, 0);
#pragma omp parallel for schedule(static)
    for (long long bb = 0; bb < static_cast<long long>(blocks); ++bb) {
        const size_t b = size_t(bb), from = b * kKnnBlockQueries;
        layout.blockRadius[b] =
            ballOf(in, layout.order, from, std::min(positions, from + kKnnBlockQueries), widen,
                   layout.blockCentre.data() + b * stride);
        const int tile = int(from / kKnnPartTile);
        layout.blockPart[b] =
            int(std::upper_bound(layout.partTiles.begin(), layout.partTiles.end(), tile) -
                layout.partTiles.begin()) -
            1;
    }
    return layout;
}

}  // namespace sepal
