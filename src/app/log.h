#pragma once
// The Log window's lines: what the workspace did, warned about or failed at, with the time.

#include <chrono>
#include <string>
#include <vector>

namespace sepal::app {

/// One line of the Log window.
struct LogEntry {
    enum Level { Info, Warning, Error } level = Info;  ///< severity
    std::string text;                                  ///< message
    double seconds = 0;                                ///< since the app started
};

/// The log shared by the document, the scheduler and the services (the last 1000 lines).
class Log {
  public:
    /// Starts the clock that stamps every line.
    Log();
    /// Adds a line; errors are also printed on stderr (scripts and tests read them there).
    void add(LogEntry::Level level, const std::string& text);
    /// The lines, oldest first.
    const std::vector<LogEntry>& entries() const { return m_entries; }
    /// Errors logged so far (the UI's error banner counts them).
    size_t errorCount() const { return m_errors; }
    /// Seconds since the log was created.
    double seconds() const;

  private:
    std::vector<LogEntry> m_entries;
    size_t m_errors = 0;
    std::chrono::steady_clock::time_point m_start;
};

}  // namespace sepal::app
