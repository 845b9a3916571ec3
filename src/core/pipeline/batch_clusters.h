#pragma once
// CytoNorm's clusters for a batch alignment (batch_alignment.h): the anchors' cells put in
// clusters by k-means on their type markers, as each batch's own maps carry them (so that a
// cell type finds the same cluster in every batch), and each cluster's quantiles and goal.

#include <string>
#include <vector>

#include "core/io/table.h"
#include "core/pipeline/batch_alignment.h"

namespace sepal {

/// Learns `k` clusters of the anchors' cells into `alignment` (whose batches, quantiles and goal
/// are learnt): k-means of at most 20,000 cells a batch on the type markers (every marker when
/// none is), then per cluster the quantiles of its cells in each batch and their mean; a cluster
/// with fewer than 50 cells of some batch's anchors keeps no maps. Throws InputError for more
/// clusters than half the cells.
void learnAlignmentClusters(BatchAlignment& alignment, const std::vector<const io::Table*>& anchors,
                            const std::vector<std::string>& batchOf, size_t k);

}  // namespace sepal
