#pragma once
// An input file's events a block at a time: FCS files are decoded block by block (a file larger
// than memory works), other formats are read whole as one block.

#include <memory>
#include <optional>
#include <string>

#include "core/io/fcs_stream.h"
#include "core/io/table.h"

namespace sepal {

/// The events of one input, in order, in blocks of at most `blockEvents`.
class InputBlocks {
  public:
    /// Opens `path` (io::readTable's formats); throws InputError naming it when it cannot.
    InputBlocks(const std::string& path, size_t blockEvents);
    /// The next block (with the file's channels, keywords and labels), or none after the last.
    std::optional<io::Table> next();
    /// Events in the file.
    size_t events() const;

  private:
    size_t m_blockEvents;
    size_t m_next = 0;
    std::unique_ptr<io::FcsEventStream> m_fcs;
    std::optional<io::Table> m_whole;  // other formats: the file, handed out once
};

}  // namespace sepal
