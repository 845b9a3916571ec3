#pragma once
// Loading files in the background with progress and cancel, so the window keeps drawing.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/io/table.h"

namespace sepal::app {

/// What a FileMaker wrote.
struct MadeFiles {
    std::vector<std::string> paths;  ///< the files to read, in order
    std::string note;                ///< what to tell the user once they are open
};

/// Writes files on the worker before they are read (the aligned samples of Align batches);
/// throws InputError, which the task reports as its error.
using FileMaker = std::function<MadeFiles()>;

/// Reads a list of files on a worker thread; poll done(), then take the result.
class LoadTask {
  public:
    /// Starts reading `paths` at once.
    explicit LoadTask(std::vector<std::string> paths);
    /// Starts `make` at once (current() says `making` meanwhile), then reads the files it made.
    LoadTask(FileMaker make, std::string making);
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
    /// What it does now, for the progress line ("Reading PATH", or the FileMaker's `making`).
    std::string current() const;
    /// After done(): the tables read (empty when an error occurred or it was cancelled).
    std::vector<io::Table> takeTables();
    /// After done(): the error message, empty when all files were read.
    std::string error() const;
    /// After done(): the FileMaker's note ("" without one).
    std::string note() const;
    /// After done(): true when the FileMaker failed (error() says why), not a read.
    bool makingFailed() const { return m_makingFailed.load(); }

  private:
    void run();
    FileMaker m_make;  // empty when the files exist already
    std::vector<std::string> m_paths;
    std::atomic<size_t> m_total{0};  // files to read (known once m_make has run)
    std::vector<io::Table> m_tables;
    std::string m_error, m_current, m_note;
    mutable std::mutex m_mutex;
    std::atomic<size_t> m_finished{0};
    std::atomic<bool> m_done{false}, m_cancel{false}, m_makingFailed{false};
    std::thread m_thread;
};

}  // namespace sepal::app
