#pragma once
// A read-only memory map of a whole file, so readers decode straight from the page cache.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace sepal::io {

/// A file mapped read-only into memory; an empty file maps to an empty span.
class MappedFile {
  public:
    /// Maps `path`; `populate` reads it all in at once (for whole-file decoding, not for peeking).
    /// Throws InputError (naming the file) when it cannot be opened or mapped.
    explicit MappedFile(const std::string& path, bool populate = true);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    /// The file's bytes.
    std::span<const uint8_t> bytes() const { return {m_data, m_size}; }
    /// Size in bytes.
    size_t size() const { return m_size; }
    /// Lets the system drop the pages wholly inside [offset, offset + length) from memory (read
    /// again from the file if used again): what a reader done with them calls.
    void release(size_t offset, size_t length) const;

  private:
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
};

}  // namespace sepal::io
