#pragma once
// The projection driver as the window sees it while a polished picture is shown
// (polished_picture.h): the host's polished positions are drawn, never the device's, and nothing
// is projected or copied into the drawn memory; timing, figures and stats are the driver's own.

#include "app/projection_driver.h"

namespace sepal::app {

/// Wraps the scheduler's current driver (followed through the pointer, so a fallback to the
/// CPU is seen) for the time a polished picture stands.
class PolishedView final : public ProjectionDriver {
  public:
    /// under: the scheduler's driver pointer, which outlives this view.
    explicit PolishedView(ProjectionDriver* const& under) : m_under(under) {}
    void frame(const State&, double, FrameUpdate&) override {}
    bool settled() const override { return true; }
    bool working() const override { return m_under->working(); }
    void fillStats(WorkStats& stats) const override { m_under->fillStats(stats); }
    bool drawsOnDevice() const override { return false; }
    void keepPositionsInProjector(bool on) override { m_under->keepPositionsInProjector(on); }
    const float* projectorPositions() const override { return nullptr; }
    void fillVertexBuffer() override {}  // the window uploaded the polished positions there
    void enableTiming(bool on) override { m_under->enableTiming(on); }
    DeviceFigures deviceFigures() const override { return m_under->deviceFigures(); }

  private:
    ProjectionDriver* const& m_under;
};

}  // namespace sepal::app
