#include "app/log.h"

#include <cstdio>

namespace sepal::app {

namespace {
constexpr size_t kMaxEntries = 1000;
}  // namespace

Log::Log() : m_start(std::chrono::steady_clock::now()) {}

double Log::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void Log::add(LogEntry::Level level, const std::string& text) {
    m_entries.push_back({level, text, seconds()});
    if (level == LogEntry::Error) {
        ++m_errors;
        // Also on the terminal: scripts and tests read it there.
        std::fprintf(stderr, "sepal: error: %s\n", text.c_str());
    }
    if (m_entries.size() > kMaxEntries) m_entries.erase(m_entries.begin());
}

}  // namespace sepal::app
