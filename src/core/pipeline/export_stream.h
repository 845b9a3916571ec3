#pragma once
// An export written a block of events at a time, for files larger than memory: the same bytes
// writeExport writes when it has every event at once.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/pipeline/export_anndata.h"
#include "core/pipeline/export_table.h"

namespace sepal {

/// One CSV, FCS or AnnData export (by the extension) filled block by block; not one file per
/// population.
class ExportStream {
  public:
    /// Checks the extension and that `path` is none of `inputs`; nothing is written yet. Throws
    /// InputError.
    ExportStream(std::string path, ExportOptions options, const std::vector<std::string>& inputs);
    ~ExportStream();
    ExportStream(const ExportStream&) = delete;
    ExportStream& operator=(const ExportStream&) = delete;
    /// Appends a block of events (one table; bounds are ignored). Throws InputError.
    void append(const ExportSource& block);
    /// Writes what depends on every block (FCS: the event count, ranges and display ranges) and
    /// renames the file into place. Throws InputError.
    void commit();

  private:
    std::string m_path;
    ExportOptions m_options;
    ExportFormat m_format;
    std::unique_ptr<io::CsvStreamWriter> m_csv;
    std::unique_ptr<io::FcsStreamWriter> m_fcs;
    std::unique_ptr<AnnDataExport> m_anndata;
    CoordinateBounds m_bounds;
    io::Table m_firstLayout;                 // the first block's table without events
    std::vector<std::string> m_usedColumns;  // the first block's
    std::string m_sampleColumn;
    std::optional<PopulationCodes> m_populations;  // the first block's names, no codes
};

}  // namespace sepal
