#pragma once
// What every workspace service works on: the document (state, undo, edits), the scheduler
// (projection, training, background tasks) and the log. A service is one job of the workspace
// (files, edits, populations, gates, exports, training, quality) with these three in reach.

#include <string>

#include "app/document.h"
#include "app/log.h"
#include "app/scheduler.h"

namespace sepal::app {

/// The parts a service acts through.
class Service {
  public:
    /// The document, the scheduler and the log of one workspace.
    Service(Document& document, Scheduler& scheduler, Log& log)
        : m_document(document), m_scheduler(scheduler), m_log(log) {}

  protected:
    /// The state, read-only (edits go through the document).
    const State& state() const { return m_document.state(); }
    /// Adds a line to the log.
    void log(LogEntry::Level level, const std::string& text) const { m_log.add(level, text); }

    Document& m_document;
    Scheduler& m_scheduler;
    Log& m_log;
};

}  // namespace sepal::app
