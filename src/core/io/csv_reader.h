#pragma once
// CSV/TSV reader: numeric columns become channels, text columns become labels.

#include <string>
#include <string_view>

#include "core/io/table.h"

namespace sepal::io {

/// Whether the first row names the columns.
enum class CsvHeader {
    Auto,     ///< a header when the first row has a field that is neither a number nor missing
    Present,  ///< the first row is a header
    Absent,   ///< no header: columns are named V1..Vn
};

/// How to read a delimited text file.
struct CsvReadOptions {
    CsvHeader header = CsvHeader::Auto;  ///< header detection
    char delimiter = 0;                  ///< ',', '\t' or ';'; 0 detects it from the first lines
};

/// Reads a CSV/TSV file: quoted fields with doubled quotes, CRLF or LF, blank lines skipped,
/// CR-only line endings too; NA/NaN/empty cells as NaN. A column becomes a LabelColumn when at
/// least half of its non-missing cells are not numbers; a column of numbers with fewer text
/// cells is an error listing the first of them (line and value). The spillover matrix beside
/// the file ("NAME.spillover.csv", as Sepal's CSV exports leave it) becomes the table's. Throws
/// InputError naming the file, line and column of the problem.
Table readCsv(const std::string& path, const CsvReadOptions& options = {});

/// Parses CSV bytes held in memory (the same rules as readCsv); `source` names them in errors.
Table parseCsv(std::string_view bytes, const CsvReadOptions& options = {},
               const std::string& source = "<memory>");

}  // namespace sepal::io
