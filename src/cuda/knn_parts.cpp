// The k-NN graph's parts (knn_parts.h): Lloyd's steps on the GPU for the clusters, the layout
// of the split rows by them, and those rows in the layout's order.

#include "cuda/knn_parts.h"

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

}  // namespace

size_t defaultKnnPartsFrom() {
    const char* v = std::getenv("SEPAL_KNN_PARTS_FROM");
    const size_t from = v ? size_t(std::strtoull(v, nullptr, 10)) : size_t(0);
    return from > 0 ? from : size_t(1) << 18;
}

bool knnPartsTake(KnnMetric metric, size_t n, size_t fromPoints) {
    static const bool wanted = [] {
        const char* v = std::getenv("SEPAL_KNN_PARTS");
        return !(v && std::string(v) == "0");
    }();
    return wanted && metric == KnnMetric::Euclidean && n >= fromPoints;
}

KnnPartLayout gatherKnnParts(RowsView points, const SplitKnnInput& split, double* kmeansSeconds) {
    const size_t n = points.rows, d = points.cols;
    std::vector<size_t> usableRows;
    for (size_t i = 0; i < n; ++i)
        if (std::isfinite(split.norm2[i])) usableRows.push_back(i);
    const size_t parts =
        std::clamp<size_t>(usableRows.size() / kPointsPerPart, 1, size_t(kMaxKnnParts - 1));
    // Seeds spread evenly over the usable rows, then Lloyd's steps; the last step's assignment
    // (to the landmarks before its move) is the partition.
    std::vector<uint32_t> part(n, uint32_t(parts));  // unusable rows: the last part
    if (!usableRows.empty()) {
        std::vector<float> centres(parts * d);
        for (size_t j = 0; j < parts; ++j) {
            const float* r = points.row(usableRows[j * usableRows.size() / parts]);
            std::copy(r, r + d, centres.begin() + long(j * d));
        }
        const StageClock::time_point start = StageClock::now();
        TrainingStep step(points.values, n, d);
        step.measureInertia(false);  // the partition reads the centres and the assignment only
        for (int s = 0; s < kLloydSteps; ++s)
            centres = step.stepKmeans(centres.data(), parts).landmarks;
        const std::vector<uint32_t> nearest = step.assignment();
        for (size_t i : usableRows)
            if (nearest[i] != kSkippedPoint) part[i] = nearest[i];
        if (kmeansSeconds) *kmeansSeconds = secondsSince(start);
    }
    // The split rows are a = fl(x - mean): each value within 2^-24 |a_c| of the exact one.
    const KnnLayoutRows rows{split.rows.data(), split.norm2.data(), n, split.stride, 0x1p-24};
    return layOutKnnParts(rows, part, parts);
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
