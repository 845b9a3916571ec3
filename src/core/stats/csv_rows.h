#pragma once
// The rows of a comma-separated table of numbers per sample (populations.csv,
// sample_medians.csv), read with the checks each table of the statistics needs.

#include <string>
#include <vector>

namespace sepal::stats {

/// One row of fields and the line it was read from.
struct CsvRow {
    size_t line = 0;                  ///< 1-based line number in the file
    std::vector<std::string> fields;  ///< as many as the header's
};

/// A table's header and rows.
struct CsvRows {
    std::vector<std::string> header;  ///< the first line's fields
    std::vector<CsvRow> rows;         ///< blank lines skipped, a trailing CR dropped
};

/// Reads `path` (`what` names the table in errors: "the population counts"). Throws InputError
/// for a file that cannot be opened, an empty one, or a row with another number of fields than
/// the header, naming the file and line.
CsvRows readCsvRows(const std::string& path, const std::string& what);

/// The index of `name` in `names`, appended when it is not there yet (first-appearance order).
size_t indexAdding(std::vector<std::string>& names, const std::string& name);

}  // namespace sepal::stats
