#pragma once
// Opening a data file whatever its kind: FCS by its magic bytes, CSV/TSV/TXT, points JSON.

#include <string>

#include "core/io/table.h"

namespace sepal::io {

/// Reads `path`: FCS when it starts with "FCS" (population codes become labels, see
/// FORMATS.md), points JSON for .json, delimited text for .csv/.tsv/.txt or any other text
/// file. Throws InputError naming the file when its content is none of these, when a .fcs file
/// does not start with "FCS", when the file holds no events, and when `path` is a directory,
/// a FIFO or a device rather than a regular file.
Table readTable(const std::string& path);

/// True when `path` opens and its first bytes are "FCS": what readTable reads as FCS.
bool startsWithFcs(const std::string& path);

}  // namespace sepal::io
