#pragma once
// What every reader produces and every writer consumes: events x channels plus labels and metadata.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/matrix.h"

namespace sepal::io {

/// One measured parameter (a column) of a dataset.
struct Channel {
    std::string name;     ///< channel name ($PnN, or the CSV header)
    std::string marker;   ///< marker name ($PnS); empty when the file has none
    double range = 0;     ///< $PnR, the instrument's range; 0 when unknown
    int bits = 32;        ///< $PnB, bits per stored value
    double gain = 1;      ///< $PnG of a linear channel: its values are the stored ones / gain
    double timestep = 1;  ///< $TIMESTEP of the time channel: seconds per unit of its values
    /// Value = stored value x storedFactor() (1 for values read as they are stored).
    double storedFactor() const { return 1.0 / gain; }
    bool integerStored = false;  ///< the file stored whole numbers (an FCS $DATATYPE I parameter)
};

/// A non-numeric column kept as per-event labels (a population or sample column).
struct LabelColumn {
    std::string name;                     ///< header of the column
    std::vector<std::string> categories;  ///< distinct values, in order of first appearance
    std::vector<int32_t> codes;           ///< per event: index into categories, -1 when missing
};

/// A spillover (compensation) matrix and the channels its rows and columns refer to.
struct Spillover {
    std::vector<std::string> channels;  ///< channel names ($PnN), in matrix order
    Matrix matrix;                      ///< channels x channels; row i = spill of channel i
};

/// Events read from one file (or one FCS data set): numeric channels, labels and metadata.
struct Table {
    std::string source;                                         ///< path it was read from
    std::vector<Channel> channels;                              ///< one per column of values
    Matrix values;                                              ///< events x channels
    std::vector<LabelColumn> labels;                            ///< non-numeric columns
    std::vector<std::pair<std::string, std::string>> keywords;  ///< every keyword, file order
    std::optional<Spillover> spillover;                         ///< when the file has one
    std::vector<std::string> warnings;                          ///< what was odd but readable

    /// Number of events (rows).
    size_t events() const { return values.rows; }
    /// Index of the channel whose name or marker equals `name` (exact, then case-insensitive); -1.
    int findChannel(const std::string& name) const;
    /// Value of keyword `key` (case-insensitive), or nullptr.
    const std::string* keyword(const std::string& key) const;
};

/// The events of `table` where keep[i] is not 0, in order (values and labels; the rest as is).
Table keepRows(const Table& table, const std::vector<uint8_t>& keep);

}  // namespace sepal::io
