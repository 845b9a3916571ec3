#include "app/whole_data_training.h"

#include <chrono>
#include <cmath>
#include <utility>
#include <vector>

#include "app/gating.h"

namespace sepal::app {

namespace {
std::string subsampleNote(size_t subsample) {
    return "training on a subsample of " + std::to_string(subsample) + " cells instead";
}
}  // namespace

WholeDataTraining::WholeDataTraining(WholeDataStepsFactory factory, Log& log)
    : m_factory(std::move(factory)), m_log(log) {}

WholeDataTraining::~WholeDataTraining() = default;

size_t WholeDataTraining::cells() const {
    return m_steps ? m_steps->count() : 0;
}

WholeDataFigures WholeDataTraining::figures() const {
    return m_steps ? m_steps->figures() : WholeDataFigures{};
}

bool WholeDataTraining::attach(Trainer& trainer, const State& state, size_t subsample,
                               bool resident) {
    if (!m_factory) return false;
    if (m_stale) {
        // The trainer lets go of the old cells' steps before they go.
        trainer.useWholeData(nullptr);
        m_steps.reset();
        m_failed = false;
        m_stale = false;
    }
    if (m_steps) return trainer.useWholeData(m_steps.get());
    // With no steps, asking with null changes nothing and says whether the trainer takes them.
    if (m_failed || !trainer.useWholeData(nullptr) || state.data.events() == 0) return false;
    build(state, subsample, resident);
    return m_steps && trainer.useWholeData(m_steps.get());
}

void WholeDataTraining::build(const State& state, size_t subsample, bool resident) {
    try {
        // The cells the recipes train on: those inside the gates, listed by row so that the
        // steps can take them from wherever the cells already are (without gates, every row).
        const Matrix& points = state.data.points;
        TrainingCells cells{points.data(), points.rows, points.cols};
        cells.resident = resident;
        std::vector<size_t> inside;
        if (!state.gating.inside.empty()) {
            inside = state.gating.events(points.rows);
            cells.rows = &inside;
        }
        const auto start = std::chrono::steady_clock::now();
        m_steps = m_factory(cells);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const std::string origin = m_steps->origin();
        m_log.add(LogEntry::Info, "training over every cell on the GPU (" +
                                      std::to_string(m_steps->count()) + " cells" +
                                      (origin.empty() ? "" : ", " + origin) + ", ready in " +
                                      std::to_string(long(std::lround(ms))) + " ms)");
    } catch (const std::exception& e) {
        m_steps.reset();
        m_failed = true;
        m_log.add(LogEntry::Warning, std::string("cannot train over every cell on the GPU (") +
                                         e.what() + "); " + subsampleNote(subsample));
    }
}

void WholeDataTraining::fail(Trainer& trainer, const std::string& why, size_t subsample) {
    trainer.useWholeData(nullptr);
    m_steps.reset();
    m_failed = true;
    m_log.add(LogEntry::Warning, "training over every cell on the GPU failed (" + why + "); " +
                                     subsampleNote(subsample));
}

}  // namespace sepal::app
