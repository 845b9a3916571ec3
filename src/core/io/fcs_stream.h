#pragma once
// An FCS data set read a block of events at a time, so that a file larger than memory can be
// worked through: only the block being decoded is held (the file is mapped, not read in).

#include <memory>
#include <optional>
#include <string>

#include "core/io/fcs_dataset.h"
#include "core/io/fcs_reader.h"
#include "core/io/mapped_file.h"
#include "core/io/table.h"

namespace sepal::io {

/// One data set of an FCS file, decoded on request in blocks of events.
class FcsEventStream {
  public:
    /// Opens `path` (data set and scaling as readFcs takes them). Throws InputError as readFcs.
    explicit FcsEventStream(const std::string& path, const FcsReadOptions& options = {});
    /// The data set without its events: channels, keywords, spillover, warnings (0 rows).
    const Table& layout() const { return m_layout; }
    /// Events in the data set ($TOT).
    size_t events() const { return m_set.events; }
    /// Events [first, first + count) (clipped to the data set) as readFcs decodes them, with the
    /// layout's channels, keywords and spillover. Delimited ASCII data sets are decoded whole on
    /// the first call (they have no fixed event size).
    Table read(size_t first, size_t count);

  private:
    std::string m_path;
    bool m_raw = false;
    std::unique_ptr<MappedFile> m_file;
    fcs::Dataset m_set;
    Table m_layout;
    std::optional<Matrix> m_whole;  // a delimited ASCII data set, decoded once
};

}  // namespace sepal::io
