#pragma once
// Reading FCS 2.0, 3.0, 3.1 and 3.2 files (and listing their data sets without decoding events).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal::io {

/// What to read from an FCS file.
struct FcsReadOptions {
    size_t dataset = 0;  ///< 0-based index of the data set ($NEXTDATA chain)
    bool raw = false;    ///< stored values after bit masking, without $PnE/$PnG scaling
};

/// One data set as listed by inspectFcs.
struct FcsDatasetInfo {
    std::string version;                 ///< "FCS3.1" etc. (from the data set's HEADER)
    size_t events = 0;                   ///< $TOT
    char datatype = 'F';                 ///< $DATATYPE: I, F, D or A
    std::string byteOrder;               ///< $BYTEORD as written
    std::vector<Channel> parameters;     ///< name ($PnN), marker ($PnS), range ($PnR), bits ($PnB)
    std::optional<Spillover> spillover;  ///< a readable $SPILLOVER, SPILL or $COMP matrix
    bool eventsReadable = true;          ///< false when the DATA segment is missing or truncated
    std::vector<std::string> warnings;   ///< what was odd (and, if unreadable, why DATA is)
};

/// Every data set of one file.
struct FcsFileInfo {
    std::string path;                      ///< the file as given
    std::vector<FcsDatasetInfo> datasets;  ///< in $NEXTDATA order
};

/// Reads one data set of the FCS file at `path` (memory-mapped) into a Table: events x parameters
/// as float32, every keyword, the spillover matrix. Throws InputError naming the file, the segment
/// (HEADER, TEXT, DATA, ANALYSIS) and the byte offset when the file cannot be read.
Table readFcs(const std::string& path, const FcsReadOptions& options = {});

/// Lists the data sets of the FCS file at `path` without decoding events; throws InputError when
/// the first data set's HEADER or TEXT is unreadable (a truncated DATA segment is a warning).
FcsFileInfo inspectFcs(const std::string& path);

/// readFcs over bytes already in memory; `name` stands for the file in messages.
Table readFcsBytes(std::span<const uint8_t> bytes, const std::string& name,
                   const FcsReadOptions& options = {});

/// inspectFcs over bytes already in memory; `name` stands for the file in messages.
FcsFileInfo inspectFcsBytes(std::span<const uint8_t> bytes, const std::string& name);

}  // namespace sepal::io
