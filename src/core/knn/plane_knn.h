#pragma once
// The exact k-NN graph of points in the plane (a picture's cells) through a k-d tree: the graph
// knnGraph gives for two columns, in about n log n instead of n^2.

#include <cstddef>

#include "core/common/matrix.h"
#include "core/knn/knn_graph.h"

namespace sepal {

/// knnGraph(points, k, KnnMetric::Euclidean) for points of two columns: the same neighbours,
/// distances, tie rule (lower index first) and missing values (a row with one has no
/// neighbours and is no one's). All cores; throws InputError for k not below n or d != 2.
KnnGraph planeKnnGraph(const Matrix& points, size_t k);

}  // namespace sepal
