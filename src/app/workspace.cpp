// The services are made over the document, the scheduler and the log; each frame takes a
// finished load, runs the scheduler's work, shows a finished polish, then lets the quality
// score the settled picture.
#include "app/workspace.h"

namespace sepal::app {

Workspace::Workspace(const std::string& backendName)
    : m_document(m_log),
      m_scheduler(backendName, m_document, m_log),
      m_populations(m_document, m_scheduler, m_log),
      m_comparison(m_document, m_scheduler, m_log, m_populations),
      m_gates(m_document, m_scheduler, m_log),
      m_data(m_document, m_scheduler, m_log, m_populations, m_gates),
      m_edits(m_document, m_scheduler, m_log),
      m_exports(m_document, m_scheduler, m_log, m_data, m_populations, m_comparison),
      m_training(m_document, m_scheduler, m_log),
      m_polish(m_document, m_scheduler, m_log),
      m_quality(m_document, m_scheduler, m_log) {
    // Colouring by a state marker reads the columns the populations' statistics keep.
    m_scheduler.setStateColumnsSource([this] {
        const StateColumns& state = m_populations.stateColumns();
        return std::make_pair(&state.values, &state.markers);
    });
}

Workspace::~Workspace() = default;

FrameUpdate Workspace::frame(double budgetMs) {
    if (auto loaded = m_scheduler.takeLoaded()) {
        try {
            m_data.openTables(std::move(loaded->tables), loaded->addAsSamples);
        } catch (const std::exception& e) {
            log(LogEntry::Error, std::string("cannot open: ") + e.what());
        }
    }
    // A finished polish first: this frame then uploads and colours the polished picture.
    m_polish.update();
    FrameUpdate update = m_scheduler.frame(budgetMs);
    m_quality.update();
    m_comparison.update();
    return update;
}

}  // namespace sepal::app
