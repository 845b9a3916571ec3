#pragma once
// One FCS data set as described by its HEADER and TEXT: layout, parameters and where DATA lies.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/io/table.h"

namespace sepal::io::fcs {

/// How one parameter is stored and how its stored values become linear values.
struct Parameter {
    std::string name;       ///< $PnN (or $PnS, or Pn when both are missing)
    std::string marker;     ///< $PnS, trimmed; empty when absent
    double range = 0;       ///< $PnR; 0 when absent or unreadable
    int bits = 32;          ///< $PnB (characters for fixed-width ASCII, 0 for delimited ASCII)
    int bytes = 4;          ///< bytes per stored value (binary types)
    size_t offset = 0;      ///< byte offset inside one event (binary types)
    uint64_t mask = ~0ull;  ///< integer values are ANDed with this (the bit range $PnR implies)
    double logDecades = 0;  ///< $PnE f1: > 0 means log amplification over f1 decades
    double logOffset = 1;   ///< $PnE f2 (the value of stored 0)
    double gain = 1;        ///< $PnG; linear values are stored / gain
    double timestep = 1;    ///< $TIMESTEP for the time parameter, 1 otherwise
    bool isTime = false;    ///< the time parameter
    char type = 'F';        ///< I, F, D or A ($PnDATATYPE may differ from $DATATYPE)
};

/// The channel of parameter `p` as a table holds it: its name, marker, range and bits, the gain
/// its values were divided by (none when `raw` kept the stored values, or for a log-amplified
/// parameter, whose values are linear and were never stored so), and the time channel's
/// $TIMESTEP (seconds per tick; its values stay in ticks).
Channel channelOf(const Parameter& p, bool raw);

/// Everything about one data set except its decoded events.
struct Dataset {
    uint64_t start = 0;                                         ///< absolute offset of its HEADER
    std::string version;                                        ///< "FCS3.1" etc.
    std::vector<std::pair<std::string, std::string>> keywords;  ///< TEXT (+ supplemental TEXT)
    char datatype = 'F';                                        ///< I, F, D or A
    bool littleEndian = true;                                   ///< from $BYTEORD
    bool delimitedAscii = false;                                ///< $DATATYPE A with $PnB '*'
    size_t events = 0;                                          ///< $TOT
    std::vector<Parameter> parameters;                          ///< $PAR of them
    size_t eventBytes = 0;                                      ///< bytes of one stored event
    uint64_t dataBegin = 0;                                     ///< absolute offset of DATA
    uint64_t dataLength = 0;                                    ///< bytes of DATA to decode
    std::string dataError;               ///< why events cannot be read (empty when they can)
    std::optional<Spillover> spillover;  ///< $SPILLOVER, SPILL or $COMP
    std::vector<std::string> warnings;   ///< what was odd but readable
    uint64_t next = 0;  ///< absolute offset of the next data set ($NEXTDATA), 0 when none

    /// Value of keyword `key` (case-insensitive; the first when repeated), or nullptr.
    const std::string* keyword(const std::string& key) const;
};

/// Reads the HEADER and TEXT of the data set at absolute offset `start` of `file`. Problems with
/// the DATA segment are recorded in dataError (so metadata can still be listed); malformed HEADER
/// or TEXT throws InputError naming `where`, the segment and the byte offset.
Dataset parseDataset(std::span<const uint8_t> file, uint64_t start, const std::string& where);

/// All data sets of a file, following $NEXTDATA; throws InputError when the first is unreadable.
/// A later data set that cannot be read ends the list with a warning on the previous one.
std::vector<Dataset> parseDatasets(std::span<const uint8_t> file, const std::string& where);

/// Parses a spillover keyword value ("n, names or 1-based indices, n*n values") against the data
/// set's parameters; nullopt (with a warning) when it is malformed.
std::optional<Spillover> parseSpillover(const std::string& key, const std::string& value,
                                        const std::vector<Parameter>& parameters,
                                        std::vector<std::string>& warnings);

}  // namespace sepal::io::fcs
