#include "app/projection_sweeper.h"

#include <algorithm>
#include <chrono>

namespace sepal::app {

void ProjectionSweeper::reset(size_t n) {
    m_n = n;
    m_xy.assign(n * 2, 0.0f);
    m_cursor = 0;
    m_remaining = n;
    m_highSeen = m_lowSeen = ~0ull;
    m_sweeps = 0;
}

double ProjectionSweeper::progress() const {
    return m_n == 0 ? 1.0 : 1.0 - double(m_remaining) / double(m_n);
}

void ProjectionSweeper::step(const Matrix& points, const LandmarkModel& model,
                             const EmbedParams& params, Projector& projector, double budgetMs,
                             std::vector<Range>& changed) {
    using Clock = std::chrono::steady_clock;
    m_lastStepMs = 0;
    if (m_n == 0 || model.count() < 2 || points.cols != model.dim) return;
    if (model.highVersion != m_highSeen || model.lowVersion != m_lowSeen) {
        m_highSeen = model.highVersion;
        m_lowSeen = model.lowVersion;
        m_remaining = m_n;
    }
    auto start = Clock::now();
    // Slices are sized from the measured cost so that one slice stays well inside the budget.
    size_t minSlice = 2048;
    while (m_remaining > 0) {
        double spent = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        double left = budgetMs - spent;
        if (left <= 0) break;
        size_t slice = m_msPerPoint > 0 ? size_t(left / m_msPerPoint) : minSlice;
        slice = std::clamp(slice, minSlice, m_remaining);
        slice = std::min(slice, m_n - m_cursor);
        auto t0 = Clock::now();
        projector.project(points.row(m_cursor), slice, points.cols, model, params,
                          m_xy.data() + 2 * m_cursor);
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        double perPoint = ms / double(slice);
        m_msPerPoint = m_msPerPoint == 0 ? perPoint : 0.8 * m_msPerPoint + 0.2 * perPoint;
        changed.push_back({m_cursor, slice});
        m_cursor = (m_cursor + slice) % m_n;
        m_remaining -= slice;
        m_projectedTotal += slice;
        if (m_remaining == 0) ++m_sweeps;
    }
    m_lastStepMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace sepal::app

namespace sepal::app {

void ProjectionSweeper::accept(const float* xy, const LandmarkModel& model) {
    std::copy(xy, xy + m_xy.size(), m_xy.begin());
    m_highSeen = model.highVersion;
    m_lowSeen = model.lowVersion;
    if (m_remaining > 0) ++m_sweeps;
    m_remaining = 0;
}

}  // namespace sepal::app
