#pragma once
// Temporary files never outlive their writer: removed on SIGINT/SIGTERM, and stale ones (their
// writing process gone) removed the next time Sepal writes into their folder.

#include <string>

namespace sepal::io {

/// The temporary name pattern for `path` as mkstemp wants it: `path.tmp-PID@HOST-XXXXXX` (the
/// host, so that processes of other machines sharing the folder are not taken for dead).
std::string temporaryPattern(const std::string& path);

/// Remembers `temporary` so that SIGINT or SIGTERM removes it; installs the handlers on first
/// use (only where the signal still has its default action). Returns a slot for forget(), or
/// -1 when the registry is full or the path too long (the file is then only removed normally).
int rememberTemporary(const std::string& temporary);

/// Forgets the slot rememberTemporary returned (after the temporary was renamed or removed).
void forgetTemporary(int slot);

/// Creates the temporary for `path` (temporaryPattern's name, random where it says XXXXXX; mode
/// 0600), remembered before it exists, so that SIGINT or SIGTERM at any moment removes it (with
/// mkstemp, a signal between creating and remembering left it behind). Returns its descriptor
/// and sets `name` and `slot` (rememberTemporary's), or returns -1 with errno set.
int createTemporary(const std::string& path, std::string& name, int& slot);

/// Removes Sepal's stale temporaries in the folder of `path`, once per folder and process:
/// `NAME.tmp-PID-XXXXXX` whose process no longer runs, and `NAME.tmp-XXXXXX` (the older naming,
/// without a process id) not modified for an hour. Errors are ignored: this is housekeeping.
void removeStaleTemporaries(const std::string& path);

}  // namespace sepal::io
