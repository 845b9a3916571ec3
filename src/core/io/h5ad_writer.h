#pragma once
// AnnData files (.h5ad) for Python users (anndata, scanpy, pytometry), written through HDF5 in
// AnnData's on-disk format 0.1.0 (elements 0.2.0), a block of observations at a time.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"

namespace sepal::io {

/// The variables (var) of an AnnData file: one per channel.
struct AnnDataVariables {
    std::vector<std::string> names;    ///< var_names (made unique by the writer)
    std::vector<std::string> markers;  ///< var["marker"]: $PnS, or empty
    std::vector<uint8_t> embedded;     ///< var["embedded"]: the channel was embedded
};

/// A block of observations (cells); everything borrowed, each matrix has the block's rows.
struct AnnDataBlock {
    const Matrix* x = nullptr;                    ///< events x variables: X
    const Matrix* raw = nullptr;                  ///< events x variables: layers["raw"]
    const Matrix* embedding = nullptr;            ///< events x 2: obsm["X_embedsom"]
    std::vector<const LabelColumn*> categorical;  ///< obs columns of categories (by name)
    /// obs columns of true and false (a gate's membership): name, one byte per event.
    std::vector<std::pair<std::string, const std::vector<uint8_t>*>> flags;
};

/// One .h5ad file filled block by block under a temporary name; commit() writes the
/// categories and renames it into place, destroying it uncommitted leaves no file. Every block
/// has the same obs columns; a column's categories may grow from block to block. Throws
/// InputError naming the file.
class H5adWriter {
  public:
    /// Starts `path` with these variables; nothing is visible at `path` before commit().
    H5adWriter(const std::string& path, AnnDataVariables variables);
    ~H5adWriter();
    H5adWriter(const H5adWriter&) = delete;
    H5adWriter& operator=(const H5adWriter&) = delete;
    /// Appends a block of observations.
    void append(const AnnDataBlock& block);
    /// Finishes the file and renames it to its path.
    void commit();

  private:
    struct State;
    std::unique_ptr<State> m;
};

/// True when this build writes .h5ad files (it was built with HDF5).
bool canWriteH5ad();

}  // namespace sepal::io
