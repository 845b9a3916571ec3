#pragma once
// The exact k-nearest-neighbour graph of every point of a dataset (not of the landmarks): each
// point's k nearest other points under a metric, by brute force over tiles of queries and
// references, so that no more than a tile's distances live at once.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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

/// For n points (or a share of them, rows [first, first + rows())): k neighbour indices and
/// distances each, nearest first, ties by lower index.
struct KnnGraph {
    size_t n = 0;                      ///< points
    size_t k = 0;                      ///< neighbours per point
    size_t first = 0;                  ///< the point of the first row held
    std::vector<uint32_t> neighbours;  ///< rows() x k, 0-based point indices
    std::vector<float> distances;      ///< rows() x k, under the metric
    /// Rows held: n for a whole graph.
    size_t rows() const { return k ? neighbours.size() / k : 0; }
};

/// The exact k nearest other points of every row of `points` (a point is not its own
/// neighbour; duplicates of it are). Distances are summed in double precision (euclidean and
/// manhattan in the difference form, so data far from the origin keeps its order); all cores, and
/// the result does not depend on their number. A point with a missing value has none of its own
/// (index 0xFFFFFFFF, distance NaN) and is no one's neighbour. Throws InputError when k is 0 or not
/// below n.
KnnGraph knnGraph(const Matrix& points, size_t k, KnnMetric metric);

/// Builds exact k-NN graphs on a device; every builder gives knnGraph's graph.
class KnnGraphBuilder {
  public:
    virtual ~KnnGraphBuilder() = default;
    /// "cpu" or "cuda".
    virtual std::string name() const = 0;
    /// As knnGraph; throws InputError.
    KnnGraph build(const Matrix& points, size_t k, KnnMetric metric) {
        return buildRows(points, k, metric, 0, points.rows);
    }
    /// As build, for the rows [first, last) alone: their neighbours among all points, a graph
    /// holding those rows only (a share of a run spread over MPI ranks). Throws InputError.
    virtual KnnGraph buildRows(const Matrix& points, size_t k, KnnMetric metric, size_t first,
                               size_t last) = 0;
    /// Queries the last build found again on the CPU (a GPU's candidates not proven complete).
    virtual size_t redone() const { return 0; }
    /// The share of all (query, point) pairs the last build's first candidates compared: below 1
    /// where a GPU's parts left far points out (counted in whole blocks and tiles, padding
    /// included, so a close estimate).
    virtual double pairsCompared() const { return 1.0; }
    /// Queries the last build's GPU took a second time (its first candidates not proven).
    virtual size_t lookedAgain() const { return 0; }
    /// Seconds of the last build's stages, in their order (empty where a builder does not time
    /// them); a stage may be a part of another (the GPU's "k-means" of its "parts", its "first
    /// look" and "second look" of "devices"), so they do not add up.
    virtual std::vector<std::pair<std::string, double>> stageSeconds() const { return {}; }
};

/// knnGraph on all cores.
std::unique_ptr<KnnGraphBuilder> makeCpuKnnGraphBuilder();

/// How each row is prepared for a metric: usable (every value finite), then (x - shift) / norm
/// for cosine (shift 0) and pearson (shift: the row's mean), x itself for the others.
struct KnnRowScales {
    std::vector<uint8_t> usable;  ///< 1: every value finite
    std::vector<double> shift;    ///< subtracted from each value
    std::vector<double> norm;     ///< each value divided by it (0: a zero vector, all 0)
};
/// The scales of every row of `points` for `metric`.
KnnRowScales knnRowScales(RowsView points, KnnMetric metric);

/// Points prepared for a metric in double precision (cosine and pearson as unit vectors,
/// pearson's centred first), and which of them have no missing value.
struct KnnRows {
    size_t n = 0, d = 0;          ///< points and columns
    KnnMetric metric{};           ///< what the keys measure
    std::vector<double> values;   ///< n x d prepared values
    std::vector<uint8_t> usable;  ///< 1: every value finite
};
/// The rows of `points` prepared for `metric`.
KnnRows knnRows(const Matrix& points, KnnMetric metric);
/// The key that orders neighbours (squared euclidean, manhattan, or 1 - u.v), summed in order.
double knnKey(const KnnRows& rows, size_t a, size_t b);
/// knnKey's euclidean key of two float rows of d values, without KnnRows: the same value.
double squaredKey(const float* a, const float* b, size_t d);
/// squaredKey of row a of `rows` against its rows b[0..count): the same values, four at a time
/// where it can.
void squaredKeys(RowsView rows, size_t a, const uint32_t* b, size_t count, double* keys);
/// knnKey of row a against rows b[0..count): the same values, four at a time where it can.
void knnKeys(const KnnRows& rows, size_t a, const uint32_t* b, size_t count, double* keys);
/// The distance reported for a key (the root of a squared euclidean key).
float knnDistance(double key, KnnMetric metric);
/// A graph of n points with no neighbours yet, holding rows [first, last) (all by default);
/// throws InputError unless 1 <= k < n < 2^32 and first <= last <= n.
KnnGraph emptyKnnGraph(size_t n, size_t k, size_t first = 0, size_t last = SIZE_MAX);
/// The points [first, last) of g's share, in order (what buildRows finds).
std::vector<uint32_t> rowsOf(const KnnGraph& g);
/// Fills the rows `queries` (within g's share) of g with their exact neighbours (all cores).
void exactNeighbours(const KnnRows& rows, const std::vector<uint32_t>& queries, KnnGraph& g);

/// exactNeighbours for the euclidean metric, faster: single-precision candidates from blocked
/// SIMD distances of `points` (the rows' own values), re-ranked exactly; a query whose
/// candidates cannot be proven complete is done by exactNeighbours. The same graph.
void euclideanNeighbours(const Matrix& points, const KnnRows& rows,
                         const std::vector<uint32_t>& queries, KnnGraph& g);

/// Writes the whole graph as CSV (neighbour_1..neighbour_K, distance_1..distance_K, a row per
/// point) or, for a path ending in .bin, the binary form of docs/FORMATS.md. Atomic; throws
/// InputError.
void writeKnnGraph(const std::string& path, const KnnGraph& graph);

}  // namespace sepal
