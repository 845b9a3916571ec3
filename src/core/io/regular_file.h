#pragma once
// Readers open regular files only: opening a FIFO waits for a writer for ever, and a directory
// or a device is never data.

#include <string>

namespace sepal::io {

/// Throws InputError when `path` exists but is not a regular file (after following links): a
/// directory, a FIFO, a socket or a device, naming which. A missing path passes, so that the
/// caller can say "no such file" in its own words.
void requireRegularFile(const std::string& path);

}  // namespace sepal::io
