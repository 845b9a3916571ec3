#pragma once
// Spillover matrices kept outside the FCS file: the CSV/TSV tables that instruments and analysis
// tools export, text holding a $SPILLOVER keyword's value, and the matrix a CSV table of
// uncompensated values keeps beside it ("NAME.spillover.csv": CSV has no keywords).

#include <optional>
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

/// `spillover` as a CSV table: an empty corner, the channels across, a row per channel led by its
/// name, values that read back to the same floats. Throws InputError naming `path` when the
/// matrix is not square or a channel's name has a comma, quote or line break.
std::string spilloverCsv(const Spillover& spillover, const std::string& path);

/// Where a table file's matrix lies beside it: "data.csv" -> "data.spillover.csv".
std::string spilloverBeside(const std::string& tablePath);

/// The matrix beside a table file (spilloverBeside), when there is one; throws InputError naming
/// that file when it is not a spillover matrix.
std::optional<Spillover> readSpilloverBeside(const std::string& tablePath);

}  // namespace sepal::io
