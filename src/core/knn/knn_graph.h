#pragma once
// The exact k-nearest-neighbour graph of every point of a dataset (not of the landmarks): each
// point's k nearest other points under a metric, by brute force over tiles of queries and
// references, so that no more than a tile's distances live at once.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/matrix.h"

namespace sepal {

/// How two points are compared.
enum class KnnMetric {
    Euclidean,  ///< sqrt(sum (x - y)^2)
    Cosine,     ///< 1 - x.y / (|x| |y|)
    Pearson,    ///< 1 - the correlation of x and y (cosine of the centred vectors)
    Manhattan,  ///< sum |x - y|
};

/// The metric a word names (euclidean, cosine, pearson, manhattan); throws InputError listing
/// them for another word.
KnnMetric knnMetricNamed(const std::string& name);

/// For n points: k neighbour indices and distances each, nearest first, ties by lower index.
struct KnnGraph {
    size_t n = 0;                      ///< points
    size_t k = 0;                      ///< neighbours per point
    std::vector<uint32_t> neighbours;  ///< n x k, 0-based row indices
    std::vector<float> distances;      ///< n x k, under the metric
};

/// The exact k nearest other points of every row of `points` (a point is not its own
/// neighbour; duplicates of it are). Distances are summed in double precision (euclidean and
/// manhattan in the difference form, so data far from the origin keeps its order); all cores, and
/// the result does not depend on their number. A point with a missing value has none of its own
/// (index 0xFFFFFFFF, distance NaN) and is no one's neighbour. Throws InputError when k is 0 or not
/// below n.
KnnGraph knnGraph(const Matrix& points, size_t k, KnnMetric metric);

/// Writes the graph as CSV (neighbour_1..neighbour_K, distance_1..distance_K, a row per point)
/// or, for a path ending in .bin, the binary form of docs/FORMATS.md. Atomic; throws InputError.
void writeKnnGraph(const std::string& path, const KnnGraph& graph);

}  // namespace sepal
