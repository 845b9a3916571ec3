#pragma once
// The interactive model behind the window, as the windows see it: the document (state, undo,
// edits), the scheduler (projection, training, background tasks) and the log, with one service
// per job on them: data and samples, edits and undo, populations, gates, exports and sessions,
// training, and the picture's quality. A new job (a gate tree, statistics across conditions) is
// a new service beside these. It knows nothing of ImGui or OpenGL.

#include <cstdint>
#include <string>
#include <vector>

#include "app/colouring.h"
#include "app/comparison_service.h"
#include "app/data_service.h"
#include "app/document.h"
#include "app/edit_service.h"
#include "app/export_service.h"
#include "app/gate_service.h"
#include "app/log.h"
#include "app/polish_service.h"
#include "app/population_service.h"
#include "app/quality_service.h"
#include "app/scheduler.h"
#include "app/state.h"
#include "app/training_service.h"
#include "backend/backends.h"

namespace sepal::app {

/// The application's model. Every edit goes through the undo stack.
class Workspace {
  public:
    /// backendName: "auto", "cpu" or "cuda" (see makeBackend; falls back to the CPU).
    explicit Workspace(const std::string& backendName = "auto");
    ~Workspace();

    // --- the services
    /// What is open and how it is transformed.
    DataService& data() { return m_data; }
    /// Undo, redo and the edits of settings and landmarks.
    EditService& edits() { return m_edits; }
    /// The populations.
    PopulationService& populations() { return m_populations; }
    /// The populations (counts and summaries).
    const PopulationService& populations() const { return m_populations; }
    /// The gates.
    GateService& gates() { return m_gates; }
    /// Exports and sessions.
    ExportService& exports() { return m_exports; }
    /// Recipes and the refining trainer.
    TrainingService& training() { return m_training; }
    /// Conditions compared in the background (Compare window).
    ComparisonService& comparison() { return m_comparison; }
    /// Polishes of the picture ("Polish the picture").
    PolishService& polish() { return m_polish; }
    /// Polishes of the picture.
    const PolishService& polish() const { return m_polish; }
    /// The picture's quality, scored in the background once it settles.
    const PictureQuality& quality() const { return m_quality.current(); }

    // --- reading
    /// The state (read-only; edits go through the services).
    const State& state() const { return m_document.state(); }
    /// Backend name and why it was chosen.
    const Backend& backend() const { return m_scheduler.backend(); }
    /// 2D positions (n x 2), world units: the host copy.
    const std::vector<float>& positions() const { return m_scheduler.positions(); }
    /// Per-cell RGBA colours (n x 4).
    const std::vector<uint8_t>& colours() const { return m_scheduler.colours(); }
    /// What the colour bar or legend shows.
    const ColourKey& colourKey() const { return m_scheduler.colourKey(); }
    /// Timings of the last frame.
    const WorkStats& stats() const { return m_scheduler.stats(); }
    /// The document: state, history and edits (tests and tools read it directly).
    const Document& document() const { return m_document; }
    /// The scheduler: projection, training and background tasks.
    const Scheduler& scheduler() const { return m_scheduler; }

    // --- the frame
    /// Polls tasks, trains and projects within budgetMs of work; says what to upload.
    FrameUpdate frame(double budgetMs);
    /// True when nothing is pending (projection settled, no training, loading or polish).
    bool idle() const { return m_scheduler.idle() && !m_polish.running(); }
    /// Who projects the cells now (the window asks it where the drawn positions are).
    ProjectionDriver& projection() { return m_scheduler.projection(); }
    /// Projects on the device into `target` (the window's vertex buffer) from now on, or on
    /// the CPU again with nulls (the window is going); see Scheduler::projectOnDevice.
    void projectOnDevice(ResidentProjector* projector, DevicePositions* target) {
        m_scheduler.projectOnDevice(projector, target);
    }

    // --- the log
    /// The log's entries.
    const std::vector<LogEntry>& log() const { return m_log.entries(); }
    /// Adds a line to the log (errors are also shown by the UI).
    void log(LogEntry::Level level, const std::string& text) { m_log.add(level, text); }
    /// Log entries of level Error so far (for the error banner).
    size_t errorCount() const { return m_log.errorCount(); }
    /// Seconds since the workspace was created.
    double seconds() const { return m_log.seconds(); }

  private:
    // Declared in this order: the scheduler refers to the document and the log, and its worker
    // threads stop before either goes; the services refer to all three.
    Log m_log;
    Document m_document;
    Scheduler m_scheduler;
    PopulationService m_populations;
    ComparisonService m_comparison;
    GateService m_gates;
    DataService m_data;
    EditService m_edits;
    ExportService m_exports;
    TrainingService m_training;
    PolishService m_polish;
    QualityService m_quality;
};

}  // namespace sepal::app
