#pragma once
// The opened files: raw tables, one sample per file, and the transformed matrix the model sees.
// The transform is core's TransformPipeline, fitted and applied as sepal-cli does, so the app and
// the command line see the same numbers.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/cluster/population_naming.h"
#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/transform/pipeline.h"

namespace sepal::app {

/// One opened file: where its events sit in the combined dataset.
struct Sample {
    std::string path;  ///< file it came from
    std::string name;  ///< shown in legends: the file's name (with its folder when two share it)
    size_t first = 0;  ///< index of its first event in the combined dataset
    size_t count = 0;  ///< number of its events
};

/// Every opened sample, combined; `points` is what projection and training read.
struct Dataset {
    std::vector<io::Table> tables;     ///< raw events, one table per sample
    std::vector<Sample> samples;       ///< one per table
    std::vector<uint16_t> sampleOf;    ///< per event: its sample index
    Matrix points;                     ///< events x used channels, transformed, row-major
    std::vector<std::string> columns;  ///< names of the columns of `points` (the pipeline's)
    /// What the user reads for each column of `points`: "CD4 (Nd142Di)" where the file names a
    /// marker, else the channel name (core's channelLabels; columns stay the identifiers).
    std::vector<std::string> labels;
    uint64_t version = 0;  ///< bumped when tables or points change
    /// Events with a missing value (NA, NaN or infinity) in a used column: left out of training
    /// and placed by the projection from their other columns.
    size_t incompleteEvents = 0;

    /// The label of column c (labels[c], or the column's name when no label was made).
    const std::string& label(size_t c) const { return c < labels.size() ? labels[c] : columns[c]; }
    /// Number of events over all samples.
    size_t events() const { return points.rows; }
    /// Each sample's name in tables (populations.csv, gate counts, exports), as sepal-cli names
    /// the same files: "s1", and "s1_2" for another folder's s1.fcs (sepal::sampleNames).
    std::vector<std::string> sampleNames() const;
    /// Each column's marker (else its channel name), from the first sample: what population
    /// names and heatmap columns are made of, as sepal-cli names them.
    std::vector<std::string> markerNames() const;
    /// What population names are made from: the columns' markers and classes (the catalogue's,
    /// with `overrides`).
    NamingInput namingInput(const MarkerClassOverrides& overrides = {}) const;
    /// Channel labels of the first sample (what the Data window lists), as in `labels`.
    std::vector<std::string> channelNames() const;
    /// (column, value) of each label column of the event's own file that has a value for it.
    std::vector<std::pair<std::string, std::string>> labelsOf(size_t event) const;
    /// Every sample's events in one table, as sepal-cli reads the same files (one file as it
    /// is; several concatenated with a "sample" column).
    io::Table combined() const;
};

/// The pipeline sepal-cli's embed chooses for these samples by default (same channels, same
/// transform, same compensation).
TransformPipeline defaultPipeline(const Dataset& data);
/// Rebuilds points, columns, labels, samples and sampleOf from the tables through `pipeline`,
/// fitted on all samples together as sepal-cli fits it (the fitted statistics are stored in
/// `pipeline`). Throws InputError when a sample lacks a channel the pipeline uses.
void rebuildPoints(Dataset& data, TransformPipeline& pipeline);

}  // namespace sepal::app
