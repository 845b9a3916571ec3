#pragma once
// Loading files in the background with progress and cancel, so the window keeps drawing.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/io/table.h"

namespace sepal::app {

/// Reads a list of files on a worker thread; poll done(), then take the result.
class LoadTask {
  public:
    /// Starts reading `paths` at once.
    explicit LoadTask(std::vector<std::string> paths);
    /// Waits for the worker (it stops after the file it is reading when cancelled).
    ~LoadTask();
    LoadTask(const LoadTask&) = delete;
    LoadTask& operator=(const LoadTask&) = delete;

    /// Files finished over files asked for, in [0, 1].
    double progress() const;
    /// True when the worker has finished (read everything, failed, or was cancelled).
    bool done() const { return m_done.load(); }
    /// Asks the worker to stop; its result is then discarded.
    void cancel() { m_cancel = true; }
    /// True when cancel() was called.
    bool cancelled() const { return m_cancel.load(); }
    /// The file being read now (for the progress line).
    std::string current() const;
    /// After done(): the tables read (empty when an error occurred or it was cancelled).
    std::vector<io::Table> takeTables();
    /// After done(): the error message, empty when all files were read.
    std::string error() const;
    /// The paths asked for.
    const std::vector<std::string>& paths() const { return m_paths; }

  private:
    void run();
    std::vector<std::string> m_paths;
    std::vector<io::Table> m_tables;
    std::string m_error, m_current;
    mutable std::mutex m_mutex;
    std::atomic<size_t> m_finished{0};
    std::atomic<bool> m_done{false}, m_cancel{false};
    std::thread m_thread;
};

}  // namespace sepal::app
