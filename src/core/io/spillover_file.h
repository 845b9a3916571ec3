#pragma once
// Spillover matrices kept outside the FCS file: the CSV/TSV tables that instruments and analysis
// tools export, and text holding a $SPILLOVER keyword's value.

#include <string>

#include "core/io/table.h"

namespace sepal::io {

/// Parses a spillover matrix from text. Accepted layouts: a header row of channel names then
/// one row of numbers per channel (optionally led by the channel's name, with an empty or "#"
/// first header cell), separated by commas, tabs or semicolons; or the FCS keyword form
/// "n,name_1,...,name_n,v_11,...,v_nn". `source` names the text in errors (InputError).
Spillover parseSpillover(const std::string& text, const std::string& source);

/// Reads a spillover matrix file (see parseSpillover); throws InputError naming the file.
Spillover readSpilloverFile(const std::string& path);

}  // namespace sepal::io
