// The k-NN graph's parts (knn_parts.h): Lloyd's steps on the GPU for the clusters, a counting
// sort into whole tiles, and the balls of the parts and of the blocks of queries.
//
// Why the balls bound the exact distance: the split rows are a = fl(x - mean), so each value
// moves by at most u |a_c| (u = 2^-24) and a row by at most u |a| <= u reach (reach: the
// largest |a|); a ball's radius is measured in double from its float centre and widened by a
// relative 10^-6 and by 2^-21 reach, so |x - y| >= |c - c'| - r - r' for x in one ball and y in
// the other. The kernel's float sums and subtractions are covered there by relative slack.

#include "cuda/knn_parts.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/common/stopwatch.h"
#include "cuda/training_step.h"

namespace sepal::cuda {
namespace {

constexpr size_t kPointsPerPart = 4096;  // about this many points a part
constexpr int kLloydSteps = 6;           // k-means steps: parts need locality, not convergence

/// The ball around rows at positions [from, to) of the layout (kNoPoint and unusable rows left
/// out): the centre (stride floats) into `centre`, the widened radius returned (-1: no row).
float ballOf(const SplitKnnInput& split, const std::vector<uint32_t>& order, size_t from, size_t to,
             double reach, float* centre) {
    const size_t stride = size_t(split.stride);
    std::vector<double> sum(stride, 0.0);
    size_t rows = 0;
    const auto usable = [&](size_t pos) {
        return order[pos] != kNoPoint && std::isfinite(split.norm2[order[pos]]);
    };
    for (size_t pos = from; pos < to; ++pos) {
        if (!usable(pos)) continue;
        const float* a = split.rows.data() + size_t(order[pos]) * stride;
        for (size_t c = 0; c < stride; ++c) sum[c] += a[c];
        ++rows;
    }
    std::fill(centre, centre + stride, 0.0f);
    if (rows == 0) return -1.0f;
    for (size_t c = 0; c < stride; ++c) centre[c] = float(sum[c] / double(rows));
    double widest = 0;
    for (size_t pos = from; pos < to; ++pos) {
        if (!usable(pos)) continue;
        const float* a = split.rows.data() + size_t(order[pos]) * stride;
        double s = 0;
        for (size_t c = 0; c < stride; ++c) {
            const double t = double(a[c]) - double(centre[c]);
            s += t * t;
        }
        widest = std::max(widest, s);
    }
    const double radius = std::sqrt(widest) * (1 + 1e-6) + reach * 0x1p-21;
    return std::nextafter(float(radius), std::numeric_limits<float>::infinity());
}

}  // namespace

bool knnPartsTake(KnnMetric metric, size_t n, size_t fromPoints) {
    static const bool wanted = [] {
        const char* v = std::getenv("SEPAL_KNN_PARTS");
        return !(v && std::string(v) == "0");
    }();
    static const size_t envFrom = [] {
        const char* v = std::getenv("SEPAL_KNN_PARTS_FROM");
        return v ? size_t(std::strtoull(v, nullptr, 10)) : size_t(0);
    }();
    return wanted && metric == KnnMetric::Euclidean && n >= (envFrom > 0 ? envFrom : fromPoints);
}

KnnPartLayout gatherKnnParts(RowsView points, const SplitKnnInput& split) {
    const size_t n = points.rows, d = points.cols, stride = size_t(split.stride);
    std::vector<size_t> usableRows;
    double reach2 = 0;
    for (size_t i = 0; i < n; ++i)
        if (std::isfinite(split.norm2[i])) {
            usableRows.push_back(i);
            reach2 = std::max(reach2, split.ownNorm2[i]);
        }
    const double reach = std::sqrt(reach2);
    const size_t parts =
        std::clamp<size_t>(usableRows.size() / kPointsPerPart, 1, size_t(kMaxKnnParts - 1));
    // Seeds spread evenly over the usable rows, then Lloyd's steps; the last step's assignment
    // (to the landmarks before its move) is the partition.
    std::vector<uint32_t> part(n, uint32_t(parts));  // unusable rows: the last part
    double kmeansSeconds = 0;
    if (!usableRows.empty()) {
        std::vector<float> centres(parts * d);
        for (size_t j = 0; j < parts; ++j) {
            const float* r = points.row(usableRows[j * usableRows.size() / parts]);
            std::copy(r, r + d, centres.begin() + long(j * d));
        }
        const StageClock::time_point start = StageClock::now();
        TrainingStep step(points.values, n, d);
        for (int s = 0; s < kLloydSteps; ++s)
            centres = step.stepKmeans(centres.data(), parts).landmarks;
        const std::vector<uint32_t> nearest = step.assignment();
        for (size_t i : usableRows)
            if (nearest[i] != kSkippedPoint) part[i] = nearest[i];
        kmeansSeconds = secondsSince(start);
    }
    // A counting sort into parts of whole tiles, each part's points in their order.
    const size_t all = parts + 1;
    std::vector<size_t> count(all, 0);
    for (uint32_t p : part) ++count[p];
    KnnPartLayout layout;
    layout.stride = split.stride;
    layout.kmeansSeconds = kmeansSeconds;
    layout.partTiles.assign(all + 1, 0);
    for (size_t p = 0; p < all; ++p)
        layout.partTiles[p + 1] =
            layout.partTiles[p] + int((count[p] + kKnnPartTile - 1) / kKnnPartTile);
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
            ballOf(split, layout.order, size_t(layout.partTiles[size_t(p)]) * kKnnPartTile,
                   size_t(layout.partTiles[size_t(p) + 1]) * kKnnPartTile, reach,
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
            ballOf(split, layout.order, from, std::min(positions, from + kKnnBlockQueries), reach,
                   layout.blockCentre.data() + b * stride);
        const int tile = int(from / kKnnPartTile);
        layout.blockPart[b] =
            int(std::upper_bound(layout.partTiles.begin(), layout.partTiles.end(), tile) -
                layout.partTiles.begin()) -
            1;
    }
    return layout;
}

SplitKnnInput splitInLayout(const SplitKnnInput& split, const KnnPartLayout& layout) {
    SplitKnnInput out;
    const size_t positions = layout.positions(), stride = size_t(split.stride);
    out.n = positions;
    out.stride = split.stride;
    out.sumColumns = split.sumColumns;
    out.scale = split.scale;
    out.keyScale = split.keyScale;
    out.relSlack = split.relSlack;
    out.absSlack = split.absSlack;
    out.rows.resize(positions * stride);
    out.norm2.assign(positions, std::numeric_limits<float>::infinity());
    out.ownNorm2.assign(positions, 0.0);
    out.error.assign(positions, 0.0);
    out.margin.assign(positions, 0.0f);
#pragma omp parallel for schedule(static)
    for (long long pp = 0; pp < static_cast<long long>(positions); ++pp) {
        const size_t pos = size_t(pp);
        float* to = out.rows.data() + pos * stride;
        const uint32_t i = layout.order[pos];
        if (i == kNoPoint) {
            std::fill(to, to + stride, 0.0f);
            continue;
        }
        std::copy_n(split.rows.data() + size_t(i) * stride, stride, to);
        out.norm2[pos] = split.norm2[i];
        out.ownNorm2[pos] = split.ownNorm2[i];
        out.error[pos] = split.error[i];
        out.margin[pos] = split.margin[i];
    }
    return out;
}

}  // namespace sepal::cuda
