#pragma once
// Sample metadata: a CSV with one row per file and columns such as condition, patient, batch,
// so that samples can be coloured and grouped by what they are, not by their file names.

#include <string>
#include <vector>

namespace sepal {

/// The attributes of each listed file.
struct SampleMetadata {
    std::string source;                            ///< the CSV it was read from
    std::vector<std::string> columns;              ///< attribute names (condition, patient, ...)
    std::vector<std::string> files;                ///< per row: the file it describes
    std::vector<std::vector<std::string>> values;  ///< per row: one value per column
    bool operator==(const SampleMetadata&) const = default;

    /// The row describing the file at `path`: its first column names the file by path, by file
    /// name or by sample name (without folders and extension); -1 when no row does.
    int rowOf(const std::string& path) const;
    /// The value of attribute `column` for the file at `path` ("" when it is not listed).
    std::string valueOf(const std::string& path, size_t column) const;
    /// The distinct values of attribute `column` over `paths`, in order of first appearance
    /// ("" for files not listed).
    std::vector<std::string> valuesOver(const std::vector<std::string>& paths, size_t column) const;
    /// The index of column `name`; throws InputError that names `what` asked for it, the file
    /// and the columns it has, when it has none.
    size_t columnIndex(const std::string& name, const std::string& what) const;
    /// The column called "batch" (in any case), or "" when there is none: the only column taken
    /// as the batches unasked, for aligning by another (the conditions) would remove what a
    /// study measures.
    std::string batchColumn() const;
};

/// Reads the metadata CSV (or TSV): a header whose first column names the files (file, sample,
/// filename, ...), then a row per file; every value is kept as written, columns in file order.
/// Throws InputError naming the file and line of a problem (no rows, a short row, a file listed
/// twice).
SampleMetadata readSampleMetadata(const std::string& path);

}  // namespace sepal
