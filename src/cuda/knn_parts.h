#pragma once
// The points of a k-NN graph gathered into parts of nearby points, so that the split
// candidates can leave out whole parts that no query of a block can reach (and the
// trustworthiness ranks the parts no target of a warp cuts through: rank_parts.h). The parts are
// k-means clusters of the points (Lloyd's steps on the GPU), laid out with their balls in the
// split rows' space by layOutKnnParts (core/knn/knn_part_layout.h). Plain C++ header (no CUDA
// headers).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/matrix.h"
#include "core/knn/knn_graph.h"
#include "core/knn/knn_part_layout.h"
#include "cuda/split_knn.h"

namespace sepal::cuda {

/// The points from which a whole graph (unless its builder is told otherwise) and the
/// trustworthiness ranks take parts: 2^18, or SEPAL_KNN_PARTS_FROM.
size_t defaultKnnPartsFrom();

/// Whether a build (or the ranks) of n points by `metric` gathers them into parts first
/// (euclidean from `fromPoints` on; SEPAL_KNN_PARTS=0: never, for comparisons).
bool knnPartsTake(KnnMetric metric, size_t n, size_t fromPoints);

/// The layout of `points` (n x d) and their split input `split` (built from the same points):
/// k-means parts from Lloyd's steps on the current GPU (about 4096 points a part, at most
/// kMaxKnnParts less one, the unusable rows in a last part of their own). kmeansSeconds, where
/// given: the seconds of the points' upload and the Lloyd's steps.
KnnPartLayout gatherKnnParts(RowsView points, const SplitKnnInput& split,
                             double* kmeansSeconds = nullptr);

/// `split` with its rows in the layout's order (padding rows zero, never a candidate).
SplitKnnInput splitInLayout(const SplitKnnInput& split, const KnnPartLayout& layout);

}  // namespace sepal::cuda
