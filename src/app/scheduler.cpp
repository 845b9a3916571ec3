#include "app/scheduler.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include "app/cpu_projection.h"

namespace sepal::app {

namespace {
// Training reads a fixed seeded subsample, so that steps cost the same on any dataset size.
constexpr size_t kTrainingSubsample = 50000;
// Share of a frame's budget a training run may take; the sweep gets the rest.
constexpr double kTrainShare = 0.4;

/// Whether the window may train the next frame's step while it presents one (startStepAhead):
/// SEPAL_STEP_AHEAD=0 keeps every step inside its frame's work, for comparisons.
bool stepAheadFromEnvironment() {
    const char* env = std::getenv("SEPAL_STEP_AHEAD");
    return !(env && std::strcmp(env, "0") == 0);
}

/// The backend of that name (see makeBackend), or the CPU's where it cannot be made (its reason
/// says why).
Backend backendOrCpu(const std::string& name) {
    try {
        return makeBackend(name);
    } catch (const std::exception& e) {
        Backend cpu = makeBackend("cpu");
        cpu.reason = std::string(e.what()) + "; using the CPU";
        return cpu;
    }
}
}  // namespace

Scheduler::Scheduler(const std::string& backendName, Document& document, Log& log)
    : Scheduler(backendOrCpu(backendName), document, log) {}

Scheduler::Scheduler(Backend backend, Document& document, Log& log)
    : m_document(document),
      m_log(log),
      m_backend(std::move(backend)),
      m_sweeper(makeSweeper()),
      m_stepAheadAllowed(stepAheadFromEnvironment()) {
    m_log.add(LogEntry::Info,
              "projection backend: " + m_backend.name + " (" + m_backend.reason + ")");
    m_cpu = std::make_unique<CpuProjection>(*m_sweeper, *m_backend.projector);
    m_driver = m_cpu.get();
    m_wholeData = std::make_unique<WholeDataTraining>(m_backend.wholeData, m_log);
}

Scheduler::~Scheduler() {
    finishStepAhead();
}

bool Scheduler::idle() const {
    // Under a polished picture the driver is not asked to finish its host copy: nothing waits;
    // nor after a projection that failed, until the data or the model change.
    const bool projected =
        projectionFailed() || (m_sweeper->settled() && (m_polished || m_driver->settled()));
    return projected && !m_training && !m_load && !m_recipe;
}

uint64_t Scheduler::projectionKey() const {
    const State& state = m_document.state();
    return state.version(Part::Data) * 1000003 + state.version(Part::Model);
}

bool Scheduler::projectionFailed() const {
    return m_failedProjection && *m_failedProjection == projectionKey();
}

void Scheduler::dataChanged() {
    m_trainer.reset();
    const State& state = m_document.state();
    // The sweeper gets its own copy of the points: it may read them on another thread while
    // the state changes.
    bool same = m_sweeper->positions().size() == 2 * state.data.events();
    m_points = std::make_shared<const Matrix>(state.data.points);
    m_sweeper->reset(m_points, same);
    gatesChanged();
}

void Scheduler::gatesChanged() {
    // Step-by-step trainers refine on a sample of the cells inside the gates, or on all of them
    // where the backend keeps them (built again when a trainer next steps).
    m_wholeData->cellsChanged();
    const State& state = m_document.state();
    const auto& pts = state.data.points;
    const std::vector<size_t> inside = state.gating.events(pts.rows);
    size_t n = inside.size(), d = pts.cols, m = std::min(n, kTrainingSubsample);
    m_trainSample.resize(m * d);
    std::mt19937_64 rng(state.training.seed);
    std::uniform_int_distribution<size_t> any(0, n ? n - 1 : 0);
    for (size_t i = 0; i < m; ++i) {
        size_t src = inside[m == n ? i : any(rng)];
        std::copy(pts.row(src), pts.row(src) + d, m_trainSample.begin() + long(i * d));
    }
}

// ---------------------------------------------------------------- frame

FrameUpdate Scheduler::frame(double budgetMs) {
    FrameUpdate update;
    pollRecipe();
    const State& state = m_document.state();
    if (state.version(Part::Data) != m_dataSeen) {
        m_dataSeen = state.version(Part::Data);
        m_gatesSeen = state.version(Part::Gates);
        dataChanged();
    } else if (state.version(Part::Gates) != m_gatesSeen) {
        m_gatesSeen = state.version(Part::Gates);
        gatesChanged();
    }
    if (m_steppedAhead) {
        m_steppedAhead = false;  // this frame's step ran while the last frame was presented
    } else {
        m_stats.trainMs = 0;
        m_stats.trainDevice = {};
        if (m_training) trainStep(budgetMs * kTrainShare);
    }
    // A polished picture stands while the picture it was polished from does.
    if (m_polished && m_polished->key != pictureKeyOf(state)) {
        m_log.add(LogEntry::Info, "the picture changed: EmbedSOM's picture again (the " +
                                      m_polished->label + " is gone)");
        returnToEmbedSom();
    }
    if (m_polishedDropped) {
        m_polishedDropped = false;
        update.allPositions = true;
    }
    double left = std::max(1.0, budgetMs - m_stats.trainMs);
    // Nothing to project under a polished picture: any change of the model ends it first.
    if (!m_polished) project(left, update);
    if (m_pointsSeen != state.data.events()) {
        m_pointsSeen = state.data.events();
        update.allPositions = true;
    }
    updateStats();
    // Colours follow the colouring, data and populations, and density follows every sweep.
    // (New neighbour scores recolour only the view that shows them: at 10^8 cells a recolouring
    // and its upload cost a tenth of a second.)
    const uint64_t neighbours = state.colour.mode == ColourMode::Neighbours ? m_neighboursVersion
                                : state.colour.mode == ColourMode::Change   ? m_changeVersion
                                                                            : 0;
    uint64_t colourKey = state.version(Part::Colour) * 1000003 + state.version(Part::Data) * 31 +
                         state.version(Part::Populations) + state.version(Part::Gates) * 7919 +
                         neighbours * 104729;
    bool densityStale =
        state.colour.mode == ColourMode::Density && m_sweeper->sweeps() != m_sweepsSeen;
    if (colourKey != m_colourSeen || densityStale || update.allPositions) {
        m_colourSeen = colourKey;
        m_sweepsSeen = m_sweeper->sweeps();
        ColourInputs inputs{state.populations, state.gating, state.metadata,
                            positions(),       m_neighbours, m_change};
        if (state.colour.mode == ColourMode::Marker && state.colour.stateColumn >= 0 &&
            m_stateColumns)
            std::tie(inputs.stateValues, inputs.stateMarkers) = m_stateColumns();
        m_key = computeColours(state.data, state.colour, inputs, m_rgba);
        update.colours = true;
    }
    return update;
}

bool Scheduler::startStepAhead(double budgetMs) {
    finishStepAhead();
    // Only a step on the device over cells already there: a CPU step would take the cores that
    // present the frame, and a build copies and uploads every cell (the frame's own work).
    if (!m_stepAheadAllowed || !m_training || !m_stats.trainEveryCell || !m_wholeData->ready() ||
        m_polished)
        return false;
    m_stats.trainMs = 0;
    m_stats.trainDevice = {};
    m_aheadError.clear();
    // Set before the worker starts: a step that ends the run clears it (pauseTraining).
    m_steppedAhead = true;
    const bool started = m_ahead.start([this, budgetMs] {
        // trainStep logs its trainer's and the device's failures; anything else ends the run
        // in finishStepAhead, on the window's thread.
        try {
            trainStep(budgetMs * kTrainShare);
        } catch (const std::exception& e) {
            m_aheadError = e.what();
        }
    });
    // No thread to spare: the next frame steps as before.
    if (!started) m_steppedAhead = false;
    return started;
}

void Scheduler::finishStepAhead() {
    m_ahead.wait();
    if (m_aheadError.empty()) return;
    m_log.add(LogEntry::Error, "training stopped: " + m_aheadError);
    m_aheadError.clear();
    pauseTraining();
}

void Scheduler::project(double budgetMs, FrameUpdate& update) {
    const State& state = m_document.state();
    // A projection that failed is tried again only once the data or the model change: every
    // frame logged it anew (3,000 times over a file of 2 events) and never settled.
    if (projectionFailed()) return;
    try {
        m_sweeper->useAllCores(!m_document.dragging());
        m_driver->setTraining(m_training);
        m_driver->frame(state, budgetMs, update);
    } catch (const std::exception& e) {
        m_log.add(LogEntry::Error, std::string("projection failed: ") + e.what());
        m_sweeper->invalidate();
        m_failedProjection = projectionKey();
    }
    if (m_driver != m_cpu.get() && !m_driver->working()) {
        // The device gave up (it said why): the sweeper projects every cell from here on.
        m_driver = m_cpu.get();
        m_sweeper->setPaused(false);
        m_sweeper->invalidate();
    }
}

bool Scheduler::showPolished(PolishedPicture picture) {
    const State& state = m_document.state();
    if (picture.key != pictureKeyOf(state) || picture.xy.size() != 2 * state.data.events())
        return false;
    m_polished = std::make_unique<PolishedPicture>(std::move(picture));
    m_polishedDropped = true;  // uploaded, and coloured, as a whole new picture
    ++m_pictureSwitches;
    m_document.requestFit();
    return true;
}

void Scheduler::returnToEmbedSom() {
    if (!m_polished) return;
    m_polished.reset();
    m_polishedDropped = true;
    ++m_pictureSwitches;
    // Not after a drag: the view stays where the user drags.
    if (!m_document.dragging()) m_document.requestFit();
    // The drawn memory held the polished positions: EmbedSOM's are written there again.
    m_driver->drawAgain();
}

void Scheduler::projectOnDevice(ResidentProjector* projector, DevicePositions* target) {
    if (!projector || !target) {
        const bool wasOnDevice = m_driver != m_cpu.get();
        m_driver = m_cpu.get();
        m_device.reset();
        m_sweeper->setPaused(false);
        if (wasOnDevice) m_sweeper->invalidate();
        return;
    }
    m_device = std::make_unique<GpuProjection>(*projector, *target, *m_sweeper, m_backend, m_log);
    m_driver = m_device.get();
    // The sweeper keeps the host copy the device sends; it projects nothing meanwhile.
    m_sweeper->setPaused(true);
}

void Scheduler::updateStats() {
    m_stats.sweepProgress = m_sweeper->progress();
    m_stats.sweeps = m_sweeper->sweeps();
    m_stats.projected = m_sweeper->projectedTotal();
    // After the sweeper's: a device's sweep spread over frames says how far it is.
    m_driver->fillStats(m_stats);
}

// ---------------------------------------------------------------- files

void Scheduler::startLoading(const std::vector<std::string>& paths, bool addAsSamples) {
    m_load = std::make_unique<LoadTask>(paths);
    m_loadAdds = addAsSamples;
}

void Scheduler::startMaking(FileMaker make, const std::string& making) {
    m_load = std::make_unique<LoadTask>(std::move(make), making);
    m_loadAdds = false;
}

void Scheduler::cancelLoading() {
    if (!m_load) return;
    m_load->cancel();
    m_log.add(LogEntry::Info, "loading cancelled; what was open stays open");
}

std::optional<LoadedFiles> Scheduler::takeLoaded() {
    if (!m_load || !m_load->done()) return std::nullopt;
    auto task = std::move(m_load);
    if (task->makingFailed()) {
        m_log.add(LogEntry::Error, task->error() + " (what was open stays open)");
        return std::nullopt;
    }
    if (!task->error().empty()) {
        m_log.add(LogEntry::Error,
                  "cannot open: " + task->error() +
                      (m_document.state().data.events() > 0
                           ? " (what was open stays open)"
                           : " (nothing is open: choose a file in the Open window)"));
        return std::nullopt;
    }
    if (task->cancelled()) return std::nullopt;
    if (const std::string note = task->note(); !note.empty()) m_log.add(LogEntry::Info, note);
    return LoadedFiles{task->takeTables(), m_loadAdds};
}

}  // namespace sepal::app
