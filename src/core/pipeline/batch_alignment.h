#pragma once
// Batch alignment: files measured in several batches (days, instruments, barcoded plates) differ
// by more than their biology. Anchor samples measured in every batch (the same control, or a
// reference sample) show how: each batch's anchors give every marker's quantiles, the goal is
// their mean level by level, and every file of a batch is carried onto the goal by a monotone
// map per marker (quantile_map.h), in the scale the markers are embedded in (compensated and
// transformed), then back to the file's own units. This is CytoNorm's quantile normalisation:
// by default without its clusters, keeping each batch's order of cells on every marker; with
// clusters of the anchors' cells (k-means on the type markers), each cell is carried by its
// cluster's maps, so that a batch effect that differs between cell types is removed in each.
// Nothing else changes, so the aligned files open, gate and compensate as the originals did.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io/table.h"
#include "core/pipeline/prepare.h"
#include "core/transform/pipeline.h"

namespace sepal {

/// One cluster of the anchors' cells: the cells nearest its centre are carried by maps learnt
/// from the cluster's cells alone.
struct AlignmentCluster {
    /// Per step of BatchAlignment::clusterSteps: the centre, in the scale as each batch's own
    /// maps carry a cell (so that a cell type finds the same cluster in every batch).
    std::vector<double> centre;
    /// Per batch, per step of the scale: the quantiles of the cluster's anchor cells; empty when
    /// some batch's anchors have too few cells in it (its cells then take their batch's maps).
    std::vector<std::vector<std::vector<double>>> quantiles;
    std::vector<std::vector<double>> goal;  ///< per step: the batches' quantiles averaged

    /// True when the cluster has maps of its own.
    bool mapped() const { return !quantiles.empty(); }
};

/// What each batch's markers are carried by.
struct BatchAlignment {
    /// The scale quantiles are taken in: the compensation and each aligned channel's transform
    /// (steps without z-score or weights).
    TransformPipeline scale;
    /// Per step of `scale`: its marker ($PnS) in the anchors ("" for none), so that a file whose
    /// channel carries another marker is refused rather than aligned onto a stranger's goal.
    std::vector<std::string> markers;
    std::vector<double> levels;        ///< the quantiles' levels, 0 to 1
    std::vector<std::string> batches;  ///< the batches learnt, in order of first appearance
    /// Per batch, per step of `scale`: its anchors' quantiles at `levels` (empty where the batch
    /// has no finite value on that channel: it is left as it is there).
    std::vector<std::vector<std::vector<double>>> quantiles;
    /// Per step of `scale`: the goal, the batches' quantiles averaged level by level.
    std::vector<std::vector<double>> goal;
    /// The steps of `scale` cells are clustered on (the type markers); empty without clusters.
    std::vector<size_t> clusterSteps;
    /// The clusters (empty: every cell is carried by its batch's maps above).
    std::vector<AlignmentCluster> clusters;

    /// The alignment as JSON (docs/FORMATS.md).
    nlohmann::json toJson() const;
    /// Reads an alignment; throws InputError naming what is wrong in `where`.
    static BatchAlignment fromJson(const nlohmann::json& json, const std::string& where);
    /// Index of `batch` in `batches`; throws InputError listing the batches learnt.
    size_t batchIndex(const std::string& batch) const;
};

/// Reads an alignment file (what writeBatchAlignment writes); throws InputError naming the file.
BatchAlignment readBatchAlignment(const std::string& path);

/// Writes `alignment` as JSON to `path` through a temporary file and a rename.
void writeBatchAlignment(const std::string& path, const BatchAlignment& alignment);

/// The default scale for `table`: every marker channel (type and state) with the transform and
/// compensation choosePipeline gives with `options` (allMarkers set), without z-score or weights.
TransformPipeline alignmentScale(const io::Table& table, PrepareOptions options = {});

/// Learns the alignment from anchor tables, each measured in batch `batchOf[i]`: per batch,
/// every channel's quantiles (of at most 1,000,000 of its events, evenly strided) at `levels`
/// even levels. With `clusters` > 1, also that many clusters of the anchors' cells (k-means on
/// the type markers, of at most 20,000 cells a batch) and each cluster's quantiles; a cluster
/// with fewer than 50 cells of some batch's anchors keeps no maps. Throws InputError when fewer
/// than two batches are given, or for more clusters than cells.
BatchAlignment learnBatchAlignment(const std::vector<const io::Table*>& anchors,
                                   const std::vector<std::string>& batchOf,
                                   const TransformPipeline& scale, size_t levels = 101,
                                   size_t clusters = 1);

/// `table`, measured in `batch`, with each channel of the alignment carried onto the goal:
/// compensated and transformed as `scale` says, mapped from the batch's quantiles to the goal's
/// (those of the cell's nearest cluster, where it has maps), and back to the file's own units
/// (through the spillover matrix, for compensated channels). Missing and infinite values and every
/// other channel stay as they were. Throws InputError for a batch the alignment has not learnt, or
/// a channel the table lacks.
io::Table alignTable(const io::Table& table, const BatchAlignment& alignment,
                     const std::string& batch);

/// Throws what alignTable would throw for `table` as measured in `batch` (a batch the alignment
/// has not learnt, a channel or a spillover matrix the table lacks, a channel whose marker
/// differs from the anchors'), without aligning it: what is checked of every sample before any
/// file is written.
void checkAlignable(const io::Table& table, const BatchAlignment& alignment,
                    const std::string& batch);

/// How far apart the batches lie on one channel.
struct BatchGap {
    std::string channel;  ///< the channel (its marker where it has one)
    double before = 0;    ///< the mean earth mover's distance between two batches, in the scale
    double after = 0;     ///< the same distance once each table is aligned
};

/// Per channel of the alignment: the batches' gap among `before` (each of batch `batchOf[i]`) and
/// among `after` (the same tables, aligned), in the alignment's scale.
std::vector<BatchGap> batchGaps(const std::vector<const io::Table*>& before,
                                const std::vector<const io::Table*>& after,
                                const std::vector<std::string>& batchOf,
                                const BatchAlignment& alignment);

}  // namespace sepal
