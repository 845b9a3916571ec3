#pragma once
// An export as AnnData (.h5ad), for Python users: X the channels as embedded (transformed, the
// others raw), layers["raw"] every channel as the file stored it, obsm["X_embedsom"] the
// coordinates, obs the population, the other labels, the sample and each gate's membership,
// var the channel names with their markers and whether they were embedded.

#include <memory>
#include <string>

#include "core/io/h5ad_writer.h"
#include "core/pipeline/export_table.h"

namespace sepal {

/// One .h5ad export filled block by block (one table, or the tables of several samples, at a
/// time); nothing is visible at its path before commit().
class AnnDataExport {
  public:
    /// Starts nothing yet: the first block gives the variables.
    AnnDataExport(std::string path, ExportOptions options);
    ~AnnDataExport();
    AnnDataExport(const AnnDataExport&) = delete;
    AnnDataExport& operator=(const AnnDataExport&) = delete;
    /// Appends `block`'s events; needs its transformed values. Throws InputError.
    void append(const ExportSource& block);
    /// Finishes the file and renames it into place. Throws InputError.
    void commit();

  private:
    std::string m_path;
    ExportOptions m_options;
    std::unique_ptr<io::H5adWriter> m_writer;
};

}  // namespace sepal
