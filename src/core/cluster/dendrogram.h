#pragma once
// Hierarchical clustering for a heatmap's rows and columns: average linkage (UPGMA) on Euclidean
// distances, the tree and the order of its leaves, as pheatmap and CATALYST order theirs.

#include <cstddef>
#include <vector>

namespace sepal {

/// One merge of two clusters at a height (the average distance between their members).
struct DendrogramMerge {
    size_t left = 0, right = 0;  ///< a leaf i, or n + m for the cluster made by merge m
    double height = 0;           ///< average linkage distance when merged
};

/// A tree over n items and the order that draws it without crossings.
struct Dendrogram {
    size_t leaves = 0;                    ///< n
    std::vector<DendrogramMerge> merges;  ///< n - 1 merges, by increasing height
    std::vector<size_t> order;            ///< the items left to right (the tree's leaves)
};

/// Clusters n items of `dims` values each (row-major; a NaN value counts as 0) by average
/// linkage; a single item (or none) gives no merges and the trivial order.
Dendrogram clusterItems(const std::vector<float>& values, size_t n, size_t dims);

}  // namespace sepal
