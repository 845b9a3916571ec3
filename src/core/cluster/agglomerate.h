#pragma once
// Agglomerative hierarchical clustering by the nearest-neighbour chain (O(g^2) time and memory),
// for Ward's and average linkage, cut into k groups.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// How the dissimilarity of a merged group to the others is updated.
enum class Linkage {
    Ward,     ///< Ward's minimum variance (dissimilarities are squared Euclidean distances)
    Average,  ///< unweighted average of the members' dissimilarities (UPGMA)
};

/// Largest g agglomerate takes: its dissimilarity matrix is g x g doubles (128 MiB at 4096).
inline constexpr size_t kMostAgglomerated = 4096;

/// Clusters g items with the symmetric g x g dissimilarity matrix `dissimilarity` (row-major;
/// the diagonal is ignored) into k groups (1 <= k <= g): the dendrogram cut where k groups
/// remain, merges taken in order of height (ties in the order they were found). weights (empty:
/// 1 each; else g positive values) are the items' masses: a group's average counts each member by
/// its weight, and Ward's cost of a merge grows with both groups' weights. Returns each item's
/// group, groups numbered by their first item. Throws InputError for impossible k, g or weights.
std::vector<int32_t> agglomerate(std::vector<double> dissimilarity, size_t g, Linkage linkage,
                                 size_t k, const std::vector<double>& weights = {});

/// Squared Euclidean distances between the g rows (d floats each) of x, as a g x g matrix.
std::vector<double> squaredDistances(const float* x, size_t g, size_t d);

}  // namespace sepal
