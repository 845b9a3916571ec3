#pragma once
// Files are written whole or not at all: to a temporary name in the same folder, then renamed.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace sepal::io {

/// A file being written under a temporary name (`path.tmp-PID-XXXXXX`, same folder); commit()
/// renames it to `path`; destroying it uncommitted, SIGINT or SIGTERM removes the temporary, and
/// stale temporaries of dead writers in the folder are removed (temporary_files.h). Errors throw
/// InputError.
class AtomicFile {
  public:
    /// Creates the temporary file beside `path` (making its folders when missing); throws
    /// InputError when the folder cannot be made or written.
    explicit AtomicFile(const std::string& path);
    /// Removes the temporary file unless commit() succeeded.
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// Appends `size` bytes; throws InputError (disk full, I/O error).
    void write(const void* data, size_t size);
    /// Appends the characters of `text`.
    void write(std::string_view text) { write(text.data(), text.size()); }
    /// Writes `bytes` over what was written at `offset` (a place written before: a header whose
    /// room was kept); throws InputError.
    void writeAt(uint64_t offset, std::string_view bytes);
    /// Appends to `to` what this file holds from `offset` on; throws InputError.
    void copyTo(AtomicFile& to, uint64_t offset);
    /// Starts the disk writing what was appended since the last call, without waiting for it,
    /// so that a file written block by block keeps the disk busy (commit's sync then has little
    /// left) instead of leaving it idle until commit. Errors are left to commit to report.
    void startWriteback();
    /// Flushes, syncs and renames the temporary to the final path; throws InputError on failure.
    void commit();
    /// The final path.
    const std::string& path() const { return m_path; }
    /// The temporary path being written.
    const std::string& temporaryPath() const { return m_temporary; }

  private:
    std::string m_path;
    std::string m_temporary;
    std::FILE* m_file = nullptr;
    uint64_t m_writtenBack = 0;  ///< bytes whose writing startWriteback has started
    bool m_committed = false;
    int m_slot = -1;  ///< the signal handler's record of the temporary
};

/// Writes `path` atomically through a stream: `body` writes everything; exceptions leave no file.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body);

}  // namespace sepal::io
