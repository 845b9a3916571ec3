// The facade: each call goes to the document, the scheduler or both, in the order that keeps
// background work from acting on a model being replaced.
#include "app/workspace.h"

#include "app/populations.h"
#include "app/training.h"

namespace sepal::app {

Workspace::Workspace(const std::string& backendName)
    : m_document(m_log), m_scheduler(backendName, m_document, m_log) {}

Workspace::~Workspace() = default;

double Workspace::seconds() const {
    return m_log.seconds();
}

void Workspace::log(LogEntry::Level level, const std::string& text) {
    m_log.add(level, text);
}

std::vector<std::string> Workspace::trainerNames() const {
    return availableTrainers();
}

double Workspace::trainingProgress() const {
    return m_scheduler.trainingProgress();
}

bool Workspace::idle() const {
    return m_scheduler.idle();
}

FrameUpdate Workspace::frame(double budgetMs) {
    if (auto loaded = m_scheduler.takeLoaded()) {
        try {
            openTables(std::move(loaded->tables), loaded->addAsSamples);
        } catch (const std::exception& e) {
            log(LogEntry::Error, std::string("cannot open: ") + e.what());
        }
    }
    FrameUpdate update = m_scheduler.frame(budgetMs);
    updateQuality();
    return update;
}

void Workspace::updateQuality() {
    const State& st = m_document.state();
    // Scores of other data name other cells: forgotten at once, and a task still scoring them
    // is let finish unread.
    if (m_qualityTask && m_qualityTask->done()) {
        if (m_qualityData == st.version(Part::Data)) {
            m_quality = {m_qualityTask->scores(), true, false};
            // Scoring that failed has no per-cell values: the view then waits for the next.
            if (m_quality.scores.keptPerPoint.size() == m_qualityCells.size())
                m_scheduler.setNeighbourScores(
                    {m_qualityCells, m_quality.scores.keptPerPoint, kQualityK});
        }
        m_qualityTask.reset();
    }
    if (m_qualityData != st.version(Part::Data) && m_quality.valid) {
        m_quality = {};
        m_scheduler.setNeighbourScores({});
    }
    const uint64_t key =
        st.version(Part::Model) * 1000003 + st.version(Part::Data) * 7919 + st.version(Part::Gates);
    if (key == m_qualityKey || m_qualityTask || !idle()) return;
    const size_t n = st.data.events(), kept = st.gating.count(n);
    const auto& xy = positions();
    if (kept < 50 || xy.size() != 2 * n) return;
    // Evenly spaced cells among those inside the gates: the same sample for every picture of
    // the same data (found in one pass, without a list of every cell inside: 10^8 of them
    // would take 800 MB).
    const size_t m = std::min(kQualitySample, kept);
    Matrix high(m, st.data.points.cols), low(m, 2);
    m_qualityCells.resize(m);
    auto take = [&](size_t j, size_t i) {
        m_qualityCells[j] = i;
        std::copy_n(st.data.points.row(i), high.cols, high.row(j));
        low.at(j, 0) = xy[2 * i], low.at(j, 1) = xy[2 * i + 1];
    };
    if (st.gating.inside.empty()) {
        for (size_t j = 0; j < m; ++j) take(j, j * n / m);
    } else {
        size_t j = 0, rank = 0;
        for (size_t i = 0; i < n && j < m; ++i)
            if (st.gating.contains(i) && rank++ == j * kept / m) take(j++, i);
    }
    m_qualityKey = key;
    m_qualityData = st.version(Part::Data);
    m_quality.scoring = true;
    m_qualityTask = std::make_unique<QualityTask>(std::move(high), std::move(low), kQualityK,
                                                  *backend().quality);
}

void Workspace::useExternalProjection(bool on) {
    m_scheduler.useExternalProjection(on);
}

void Workspace::acceptPositions(const float* xy) {
    m_scheduler.acceptPositions(xy);
}

void Workspace::cancelLoading() {
    m_scheduler.cancelLoading();
}

// ---------------------------------------------------------------- edits

bool Workspace::undo() {
    m_scheduler.pauseTraining();
    return m_document.undo();
}

bool Workspace::redo() {
    m_scheduler.pauseTraining();
    return m_document.redo();
}

void Workspace::execute(std::unique_ptr<Command> command) {
    m_document.execute(std::move(command));
}

void Workspace::setPipeline(const TransformPipeline& pipeline) {
    if (!m_document.acceptsPipeline(pipeline)) return;
    m_scheduler.stopModelWork();
    // The landmarks of the old space mean nothing in the new one: train the recipe again.
    if (m_document.setPipeline(pipeline)) m_scheduler.runRecipe(true);
}

void Workspace::setColour(const ColourSettings& settings, const std::string& mergeKey) {
    m_document.setColour(settings, mergeKey);
}

void Workspace::setView(const ViewSettings& settings, const std::string& mergeKey) {
    m_document.setView(settings, mergeKey);
}

void Workspace::setTraining(const TrainingSettings& settings, const std::string& mergeKey) {
    m_scheduler.retune(settings);
    m_document.setTraining(settings, mergeKey);
}

void Workspace::setEmbed(const EmbedParams& params, const std::string& mergeKey) {
    m_document.setEmbed(params, mergeKey);
}

void Workspace::replaceModel(const LandmarkModel& after, const std::string& label) {
    m_document.replaceModel(after, label);
}

void Workspace::beginLandmarkDrag() {
    m_document.beginLandmarkDrag();
}

void Workspace::dragLandmarks(const std::vector<size_t>& indices, const std::vector<float>& xy) {
    m_document.dragLandmarks(indices, xy);
}

void Workspace::endLandmarkDrag(const std::string& label) {
    m_document.endLandmarkDrag(label);
}

void Workspace::addLandmark(float x, float y) {
    m_document.addLandmark(x, y);
}

void Workspace::removeLandmarks(std::vector<size_t> indices) {
    m_document.removeLandmarks(std::move(indices));
}

void Workspace::setLocked(const std::vector<size_t>& indices, bool locked) {
    m_document.setLocked(indices, locked);
}

void Workspace::resetModel() {
    m_scheduler.pauseTraining();
    m_document.resetModel();
}

size_t Workspace::brush(const std::vector<float>& polygon, const std::string& name,
                        const std::string& onlyFrom) {
    return m_document.brush(polygon, name, m_scheduler.positions(), onlyFrom);
}

void Workspace::deletePopulation(size_t i) {
    m_document.deletePopulation(i);
}

void Workspace::editPopulation(size_t i, const Population& p) {
    m_document.editPopulation(i, p);
}

void Workspace::mergePopulations(size_t from, size_t into) {
    m_document.mergePopulations(from, into);
}

const std::vector<size_t>& Workspace::populationSizes() const {
    const State& st = m_document.state();
    const uint64_t key = st.version(Part::Populations) * 1000003 + st.version(Part::Data);
    if (key != m_sizesKey) {
        m_sizes = groupSizes(st.populations);
        m_sizesKey = key;
    }
    return m_sizes;
}

// ---------------------------------------------------------------- training

void Workspace::runRecipe(bool undoable) {
    m_scheduler.runRecipe(undoable);
}

void Workspace::cancelRecipe() {
    m_scheduler.cancelRecipe();
}

void Workspace::startTraining() {
    m_scheduler.startTraining();
}

void Workspace::pauseTraining() {
    m_scheduler.pauseTraining();
}

}  // namespace sepal::app
