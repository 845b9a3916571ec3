#pragma once
// The CPU path's projection driver: the sweeper re-projects what each model change moved, in
// slices within each frame's budget (or on its worker thread).

#include "app/projection_driver.h"
#include "app/projection_sweeper.h"
#include "core/embedsom/projector.h"

namespace sepal::app {

/// Drives the sweeper with the backend's projector.
class CpuProjection : public ProjectionDriver {
  public:
    /// sweeper: holds the host positions; projector: the backend's.
    CpuProjection(Sweeper& sweeper, Projector& projector)
        : m_sweeper(sweeper), m_projector(projector) {}
    void frame(const State& state, double budgetMs, FrameUpdate& update) override;
    bool settled() const override { return m_sweeper.settled(); }
    void fillStats(WorkStats& stats) const override;
    bool sweepEverything() override {
        m_sweeper.invalidate();
        return true;
    }

  private:
    Sweeper& m_sweeper;
    Projector& m_projector;
};

}  // namespace sepal::app
