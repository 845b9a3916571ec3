#include "app/cpu_projection.h"

#include <tuple>

#include "app/projection_driver.h"

namespace sepal::app {

void CpuProjection::frame(const State& state, double budgetMs, FrameUpdate& update) {
    m_sweeper.step(state.model, state.embed, m_projector, budgetMs, update.positions);
}

void CpuProjection::fillStats(WorkStats& stats) const {
    stats.projectMs = m_sweeper.lastStepMs();
    stats.fullSweepMs = m_sweeper.fullSweepMs();
    std::tie(stats.cacheBytes, stats.cacheRefusal) = m_sweeper.cacheState();
}

}  // namespace sepal::app
