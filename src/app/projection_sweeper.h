#pragma once
// The CPU path's projection: re-projects slices of points each frame within a time budget.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/common/matrix.h"
#include "core/embedsom/projector.h"

namespace sepal::app {

/// A range of points whose 2D positions changed and must be uploaded.
struct Range {
    size_t first = 0, count = 0;  ///< points [first, first + count)
};

/// Round-robin re-projection: when the model changes, every point is re-projected once more,
/// continuing from where the cursor is, a budget's worth per frame, so the UI never stalls.
class ProjectionSweeper {
  public:
    /// Forgets all positions; n points, all of them to be projected.
    void reset(size_t n);
    /// Projects slices until `budgetMs` is spent or every point is current; appends the ranges
    /// written to `changed`. Throws InputError from the projector.
    void step(const Matrix& points, const LandmarkModel& model, const EmbedParams& params,
              Projector& projector, double budgetMs, std::vector<Range>& changed);
    /// n x 2 positions, world units.
    const std::vector<float>& positions() const { return m_xy; }
    /// True when every point was projected with the current model.
    bool settled() const { return m_remaining == 0; }
    /// Fraction of the current sweep done, in [0, 1].
    double progress() const;
    /// Milliseconds of projection work one full sweep costs (measured, extrapolated to n).
    double fullSweepMs() const { return m_msPerPoint * double(m_n); }
    /// Milliseconds spent projecting in the last step.
    double lastStepMs() const { return m_lastStepMs; }
    /// Number of completed sweeps since reset (a sweep counts once every point was re-projected).
    uint64_t sweeps() const { return m_sweeps; }
    /// Points projected since reset (throughput figures).
    uint64_t projectedTotal() const { return m_projectedTotal; }
    /// Takes positions computed elsewhere (the GPU) for the current model: xy is n x 2.
    void accept(const float* xy, const LandmarkModel& model);
    /// Marks every point as needing a new projection (a parameter changed).
    void invalidate() { m_remaining = m_n; }

  private:
    std::vector<float> m_xy;
    size_t m_n = 0, m_cursor = 0, m_remaining = 0;
    uint64_t m_highSeen = ~0ull, m_lowSeen = ~0ull;
    double m_msPerPoint = 0, m_lastStepMs = 0;
    uint64_t m_sweeps = 0, m_projectedTotal = 0;
};

}  // namespace sepal::app
