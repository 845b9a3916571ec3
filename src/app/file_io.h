#pragma once
// What the app opens: the files sepal-cli reads (through core's reader) and generated data.

#include <string>

#include "core/io/table.h"

namespace sepal::app {

/// Reads a file as sepal-cli does (FCS, CSV/TSV, points JSON), or makes "synthetic:N"
/// generated events; throws InputError.
io::Table readAnyTable(const std::string& path);

}  // namespace sepal::app
