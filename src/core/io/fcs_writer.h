#pragma once
// Writing a Table as an FCS 3.1 file (float32 list mode), through a temporary file and a rename.

#include <string>

#include "core/io/table.h"

namespace sepal::io {

/// Writes `table` to `path` as FCS 3.1: every channel as a float32 parameter ($PnB 32, $PnE 0,0,
/// $PnN/$PnS from name/marker, $PnR from the channel's range or the column's maximum), the
/// spillover matrix as $SPILLOVER (and SPILL when the table had that keyword), and the table's
/// other keywords except those describing the old layout or scaling. Each
/// label column whose name no channel has follows as a code parameter (1, 2 ... for its
/// categories, 0 for none) named in SEPAL_POPULATIONS (the first) or SEPAL_LABELn (the n-th),
/// see docs/FORMATS.md. Throws InputError when the file cannot be written; an existing file is
/// replaced only on success.
void writeFcs(const std::string& path, const Table& table);

}  // namespace sepal::io
