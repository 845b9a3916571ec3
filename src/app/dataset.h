#pragma once
// The opened files: raw tables, one sample per file, and the transformed matrix the model sees.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"

namespace sepal::app {

/// One opened file: where its events sit in the combined dataset.
struct Sample {
    std::string path;  ///< file it came from
    std::string name;  ///< shown in legends (file name without folders)
    size_t first = 0;  ///< index of its first event in the combined dataset
    size_t count = 0;  ///< number of its events
};

/// How one channel is transformed before it reaches the model.
struct ChannelTransform {
    bool use = true;        ///< part of the model's dimensions
    float cofactor = 5.0f;  ///< arcsinh(x / cofactor); 0 = left linear
};

/// Per-channel choices and compensation; the transform stage of the pipeline.
struct DataSettings {
    std::vector<ChannelTransform> channels;  ///< one per channel of the first sample
    bool compensate = true;                  ///< apply the file's spillover matrix when present
    bool operator==(const DataSettings&) const;
};

/// Every opened sample, combined; `points` is what projection and training read.
struct Dataset {
    std::vector<io::Table> tables;     ///< raw events, one table per sample
    std::vector<Sample> samples;       ///< one per table
    std::vector<uint16_t> sampleOf;    ///< per event: its sample index
    Matrix points;                     ///< events x used channels, transformed, row-major
    std::vector<std::string> columns;  ///< names of the columns of `points`
    /// What the user reads for each column of `points`: "CD4 (Nd142Di)" where the file names a
    /// marker, else the channel name (columns stay the identifiers: files, models, scripts).
    std::vector<std::string> labels;
    uint64_t version = 0;  ///< bumped when tables or points change

    /// The label of column c (labels[c], or the column's name when no label was made).
    const std::string& label(size_t c) const { return c < labels.size() ? labels[c] : columns[c]; }
    /// Number of events over all samples.
    size_t events() const { return points.rows; }
    /// Channel labels of the first sample (what the Data window lists), as in `labels`.
    std::vector<std::string> channelNames() const;
    /// (column, value) of each label column of the event's own file that has a value for it.
    std::vector<std::pair<std::string, std::string>> labelsOf(size_t event) const;
};

/// "CD4 (Nd142Di)" for a channel with a marker name, else the channel name.
std::string channelLabel(const io::Channel& channel);

/// Default transform for a table, guessed as sepal-cli does: arcsinh cofactor 5 (mass) or 150
/// (fluorescence); technical channels (scatter, time, DNA, barcodes, codes) left out.
DataSettings defaultSettings(const io::Table& table);
/// Rebuilds points, columns and sampleOf from tables and settings; throws InputError when the
/// samples lack a used channel.
void rebuildPoints(Dataset& data, const DataSettings& settings);

}  // namespace sepal::app
