#pragma once
// One line of delimited text (CSV, TSV) split into its fields, as written.

#include <string>
#include <vector>

namespace sepal::io {

/// The fields of one line of delimited text: quoted fields may hold the delimiter and doubled
/// quotes; each field is trimmed of spaces and tabs and otherwise kept as written (no numbers
/// are read, so "007" stays "007").
std::vector<std::string> delimitedFields(const std::string& line, char delimiter);

}  // namespace sepal::io
