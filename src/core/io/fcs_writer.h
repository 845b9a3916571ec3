#pragma once
// Writing a Table as an FCS 3.1 file (float32 list mode), through a temporary file and a rename.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/io/atomic_file.h"
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

/// An FCS file written a block of events at a time, the same bytes writeFcs writes for all of
/// them at once: the DATA goes in place into the temporary file from the first block on, after
/// the room HEADER and TEXT will take, and commit() writes them (they need the event count and
/// the ranges) into that room. Memory holds one block.
class FcsStreamWriter {
  public:
    /// Nothing is created until the first block.
    explicit FcsStreamWriter(const std::string& path);
    ~FcsStreamWriter();
    FcsStreamWriter(const FcsStreamWriter&) = delete;
    FcsStreamWriter& operator=(const FcsStreamWriter&) = delete;
    /// Appends a block's events; the first block sets the channels, label columns and keywords,
    /// later ones must have the same columns. Throws InputError.
    void append(const Table& block);
    /// Writes the file and renames it into place. `layout` (0 rows), when given, replaces the
    /// first block's channels (their ranges) and keywords: what depends on every block. Throws
    /// InputError.
    void commit(const Table* layout = nullptr);

  private:
    std::string m_path;
    std::unique_ptr<AtomicFile> m_file;  // from the first block on
    uint64_t m_dataBegin = 0;            // where DATA begins in it
    Table m_layout;                      // the first block's columns, no events
    std::vector<float> m_tops;           // per channel: the largest magnitude streamed
    uint64_t m_events = 0;
};

}  // namespace sepal::io
