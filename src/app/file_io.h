#pragma once
// The file formats the app reads and writes, through the core readers and writers.

#include <string>

#include "core/io/table.h"

namespace sepal::app {

/// Reads an FCS, CSV or TSV file (or "synthetic:N" for generated data); throws InputError.
io::Table readAnyTable(const std::string& path);
/// Writes a table as CSV; throws InputError.
void writeCsvTable(const std::string& path, const io::Table& table);
/// Writes a table as FCS 3.1; throws InputError (also when this build has no FCS writer).
void writeFcsTable(const std::string& path, const io::Table& table);

}  // namespace sepal::app
