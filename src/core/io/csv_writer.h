#pragma once
// CSV writer: what Sepal exports for spreadsheets, R and Python.

#include <memory>
#include <optional>
#include <string>

#include "core/io/table.h"

namespace sepal::io {

class AtomicFile;

/// A CSV file written a block of events at a time, as writeCsv writes them all at once: the
/// first block's header, then every block's rows; the file appears on commit(). A first block
/// with a spillover matrix (uncompensated values) leaves the matrix beside the file
/// (spilloverBeside, which readCsv reads back); one without removes an earlier file's matrix
/// there, which would compensate the new values.
class CsvStreamWriter {
  public:
    /// Starts the temporary file beside `path`; throws InputError when it cannot be created.
    explicit CsvStreamWriter(const std::string& path);
    ~CsvStreamWriter();
    CsvStreamWriter(const CsvStreamWriter&) = delete;
    CsvStreamWriter& operator=(const CsvStreamWriter&) = delete;
    /// Appends a block's rows (its header first, for the first block); every block must have the
    /// first one's columns. Throws InputError.
    void append(const Table& block);
    /// Renames the file into place; throws InputError (nothing appended, or the disk failed).
    void commit();

  private:
    std::unique_ptr<AtomicFile> m_file;
    std::string m_header;                  // the first block's header row
    std::optional<Spillover> m_spillover;  // the first block's matrix, written beside on commit
};

/// Writes `table` as comma-separated text through a temporary file and a rename: a header row of
/// channel names then label names, one row per event; numeric values in the shortest form that
/// reads back to the same float (NaN, Inf, -Inf spelled as R writes them), missing labels empty,
/// fields with commas, quotes, line breaks or edge spaces quoted; the table's spillover matrix
/// beside it, as CsvStreamWriter. Throws InputError.
void writeCsv(const std::string& path, const Table& table);

/// `text` as one CSV field, quoted as writeCsv quotes it (commas, quotes, line breaks, edge
/// spaces).
std::string csvField(const std::string& text);

}  // namespace sepal::io
