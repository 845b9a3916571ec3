#pragma once
// CSV writer: what Sepal exports for spreadsheets, R and Python.

#include <string>

#include "core/io/table.h"

namespace sepal::io {

/// Writes `table` as comma-separated text through a temporary file and a rename: a header row of
/// channel names then label names, one row per event; numeric values in the shortest form that
/// reads back to the same float (NaN, Inf, -Inf spelled as R writes them), missing labels empty,
/// fields with commas, quotes, line breaks or edge spaces quoted. Throws InputError.
void writeCsv(const std::string& path, const Table& table);

/// `text` as one CSV field, quoted as writeCsv quotes it (commas, quotes, line breaks, edge
/// spaces).
std::string csvField(const std::string& text);

}  // namespace sepal::io
