#pragma once
// The points of a k-NN graph gathered into parts of nearby points, so that the split
// candidates can leave out whole parts that no query of a block can reach. The parts are
// k-means clusters of the points (Lloyd's steps on the GPU), each laid out as whole reference
// tiles; every part and every block of queries gets a ball (centre and radius) around its rows
// in the split rows' space, widened by the rows' rounding, so that the distance between two
// balls less their radii bounds the exact distance of any two of their points from below.
// Plain C++ header (no CUDA headers).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/matrix.h"
#include "core/knn/knn_graph.h"
#include "cuda/split_knn.h"

namespace sepal::cuda {

/// A position of the layout that holds no point (padding to whole tiles).
constexpr uint32_t kNoPoint = 0xffffffffu;

/// The most parts a layout has (the candidate kernel keeps a bound for each in shared memory).
constexpr int kMaxKnnParts = 1024;

/// The queries of one candidate block: the layout's blocks of positions have this many.
constexpr int kKnnBlockQueries = 128;

/// Positions of a reference tile: every part starts on a whole tile (kSplitRefTile).
constexpr int kKnnPartTile = 64;

/// Points gathered into parts of whole reference tiles, with a ball for each part and each
/// block of kKnnBlockQueries positions.
struct KnnPartLayout {
    std::vector<uint32_t> order;     ///< positions: the point at each (kNoPoint: padding)
    std::vector<int> partTiles;      ///< parts + 1: each part's first tile, then the end
    std::vector<float> partCentre;   ///< parts x stride, in the split rows' space
    std::vector<float> partRadius;   ///< parts: the ball's radius (negative: no usable row)
    std::vector<float> blockCentre;  ///< blocks x stride
    std::vector<float> blockRadius;  ///< blocks (negative: no usable row)
    std::vector<int> blockPart;      ///< blocks: the part of the block's first position
    int stride = 0;                  ///< columns of a centre (the split rows' stride)
    double kmeansSeconds = 0;        ///< of the gathering: the upload and Lloyd's steps
    int parts() const { return int(partRadius.size()); }  ///< how many parts
    size_t positions() const { return order.size(); }     ///< points and padding
};

/// Whether a build of n points by `metric` gathers them into parts first (euclidean from 2^18
/// points, or from SEPAL_KNN_PARTS_FROM; SEPAL_KNN_PARTS=0 never).
bool knnPartsTake(KnnMetric metric, size_t n, size_t fromPoints);

/// The layout of `points` (n x d) and their split input `split` (built from the same points):
/// k-means parts from Lloyd's steps on the current GPU (about 4096 points a part, at most
/// kMaxKnnParts less one, the unusable rows in a last part of their own).
KnnPartLayout gatherKnnParts(RowsView points, const SplitKnnInput& split);

/// `split` with its rows in the layout's order (padding rows zero, never a candidate).
SplitKnnInput splitInLayout(const SplitKnnInput& split, const KnnPartLayout& layout);

}  // namespace sepal::cuda
