#pragma once
// The files of a batch alignment (batch_alignment.h): which batch each sample was measured in and
// which samples are anchors, read from the sample metadata, and where the aligned files go. One
// place for sepal-cli align and the app's Align batches, so that both write the same files.

#include <string>
#include <vector>

#include "core/gate/gate_selection.h"
#include "core/io/table.h"
#include "core/pipeline/batch_alignment.h"
#include "core/pipeline/sample_metadata.h"

namespace sepal {

/// Each sample's batch and whether its cells teach the alignment.
struct BatchAssignment {
    std::vector<std::string> batchOf;  ///< per sample: its value in the batch column
    std::vector<bool> anchor;          ///< per sample: an anchor (a control measured in each batch)
};

/// The batches of `paths` from `metadata`'s column `batchColumn`, and the anchors: the samples
/// whose metadata match `anchors` (a SampleFilter: "type=control", "type!=sample"), or every
/// sample when it is empty. Throws InputError naming an unknown column, a sample without a
/// batch, a malformed `anchors` or a value no sample has, or (with
/// `anchorsInEveryBatch`, when the alignment is to be learnt) a batch without an anchor.
BatchAssignment assignBatches(const SampleMetadata& metadata, const std::vector<std::string>& paths,
                              const std::string& batchColumn, const std::string& anchors,
                              bool anchorsInEveryBatch = true);

/// The metadata columns (besides the batch column) that the anchors' batches take apart: each
/// batch's anchors share one value and the batches' values differ (each batch holds one
/// condition). Learnt from such anchors, an alignment takes those columns' differences for the
/// batches' and removes them: the anchors must be samples alike in every batch.
std::vector<std::string> confoundedColumns(const SampleMetadata& metadata,
                                           const std::vector<std::string>& paths,
                                           const BatchAssignment& assignment,
                                           const std::string& batchColumn);

/// What to tell the user of confoundedColumns ("" when there are none).
std::string confoundingWarning(const std::vector<std::string>& columns);

/// Where the aligned samples are written: `folder`/<sample name> (sampleNames) with the input's
/// extension (".fcs" or ".csv"; a TSV or points JSON table is written as ".csv").
std::vector<std::string> alignedPaths(const std::vector<std::string>& paths,
                                      const std::string& folder);

/// Writes an aligned table to `path`, as FCS (.fcs) or CSV (anything else: headed "CD3
/// (Pr141Di)" as exports are, with its spillover matrix beside it), through a temporary file and
/// a rename. Throws InputError.
void writeAlignedTable(const std::string& path, const io::Table& table);

/// What alignSamples did.
struct AlignedSamples {
    BatchAlignment alignment;        ///< the alignment learnt (or the one given)
    std::vector<std::string> paths;  ///< the aligned files written, one per sample
    std::string gapsPath;            ///< batch_gaps.csv beside them
    /// Each channel's gap between batches before and after: on the anchors when the alignment
    /// was learnt from them, else on every sample.
    std::vector<BatchGap> gaps;
    std::string population;  ///< the gates' population learnt from ("" for every cell)
    /// One line for the user: files, batches, channels, the median gap before and after.
    std::string summary() const;
};

/// How alignSamples aligns and where it writes.
struct AlignRequest {
    BatchAssignment assignment;  ///< each sample's batch, and the anchors
    /// The scale an alignment is learnt in (alignmentScale), when none is `given`.
    TransformPipeline scale;
    size_t levels = 101;  ///< quantile levels learnt per channel and batch
    size_t clusters = 1;  ///< clusters of the anchors' cells, each with its own maps (1: none)
    const BatchAlignment* given = nullptr;    ///< a saved alignment to apply instead
    std::string folder;                       ///< where the aligned files go (created if missing)
    std::string folderOption = "the folder";  ///< what errors call the folder ("--out-dir")
    std::vector<std::string> readFiles;       ///< inputs never written over
    /// The cells that teach the alignment and that its gaps are measured on: those in the
    /// selection's population (clean-up gates: no beads, debris or dead cells), every cell
    /// without one. Every cell is aligned either way.
    GateSelection gates;
};

/// Aligns the samples `tables` (read from `paths`) as `request` says: by its given alignment,
/// or by one learnt from its anchors, and writes them to alignedPaths(paths, folder) with
/// batch_gaps.csv (channel, gap_before, gap_after). Refuses, before writing anything, to write
/// over one of the read files. What sepal-cli align and the app's Align batches both run.
AlignedSamples alignSamples(const std::vector<io::Table>& tables,
                            const std::vector<std::string>& paths, const AlignRequest& request);

}  // namespace sepal
