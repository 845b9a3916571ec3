#pragma once
// The folder of autosaves. Each launch writes its own file, autosave-YYYYmmdd-HHMMSS-PID.json,
// and marks it with NAME.running (holding its process id) until it exits cleanly: a launch
// never writes over another launch's autosave, and a crash leaves its file marked, so that the
// next launch can offer it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sepal::app {

/// One autosave of an earlier launch.
struct AutosaveFile {
    std::string path;      ///< the session file
    std::string label;     ///< when it was last written, local time ("2026-11-25 11:04:17")
    bool crashed = false;  ///< its launch ended without a clean exit
    bool seen = false;     ///< the crash was offered and answered (not offered again)
    int64_t written = 0;   ///< last write, seconds since the epoch
};

/// Lists, claims and releases the autosaves of one folder.
class AutosaveFolder {
  public:
    /// Clean autosaves kept after a clean exit (older ones are removed then); crashed ones are
    /// never removed by Sepal.
    static constexpr size_t kKeepClean = 10;

    /// dir: the folder ("" = autosave off).
    explicit AutosaveFolder(std::string dir) : m_dir(std::move(dir)) {}
    /// The earlier launches' autosaves, newest first (this launch's own file left out).
    std::vector<AutosaveFile> list() const;
    /// The newest autosave of a launch that crashed, if any.
    std::optional<AutosaveFile> lastCrashed() const;
    /// Claims this launch's own file (creating the folder and its marker); returns its path, ""
    /// when autosave is off. Throws InputError when the folder cannot be written.
    std::string claim();
    /// A clean exit: removes this launch's marker and the clean autosaves beyond kKeepClean.
    void release();
    /// Marks a crashed autosave as seen (NAME.running becomes NAME.crashed): it is not offered
    /// again, stays in list() for "Restore autosave", and is never removed.
    static void dismiss(const AutosaveFile& file);
    /// The folder ("" = off).
    const std::string& dir() const { return m_dir; }

  private:
    std::string m_dir, m_own;
};

}  // namespace sepal::app
