#pragma once
// Writing a Table as an FCS 3.1 file (float32 list mode), through a temporary file and a rename.

#include <string>

#include "core/io/table.h"

namespace sepal::io {

/// Writes `table` to `path` as FCS 3.1: every channel as a float32 parameter ($PnB 32, $PnE 0,0,
/// $PnN/$PnS from name/marker, $PnR from the channel's range or the column's maximum), the
/// spillover matrix as $SPILLOVER, and the table's other keywords except those describing the
/// old layout or scaling. The first label column whose name no channel has is written as a code
/// parameter with SEPAL_POPULATIONS/SEPAL_POPULATION_PARAMETER (docs/FORMATS.md); others are not.
/// Throws InputError when the file cannot be written; an existing file is replaced only on success.
void writeFcs(const std::string& path, const Table& table);

}  // namespace sepal::io
