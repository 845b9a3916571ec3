#include "app/quality_service.h"

#include <algorithm>

namespace sepal::app {

void QualityService::update() {
    const State& st = state();
    // Scores of other data name other cells: forgotten at once, and a task still scoring them
    // is let finish unread.
    if (m_task && m_task->done()) {
        // Scores of the picture before a polish came or went belong to no picture shown.
        if (m_data == st.version(Part::Data) && m_switches == m_scheduler.pictureSwitches()) {
            m_quality = {m_task->scores(), true, false};
            // Scoring that failed has no per-cell values: the view then waits for the next.
            if (m_quality.scores.keptPerPoint.size() == m_cells.size())
                m_scheduler.setNeighbourScores(
                    {m_cells, m_quality.scores.keptPerPoint, kNeighbours});
        }
        m_task.reset();
    }
    if (m_data != st.version(Part::Data) && m_quality.valid) {
        m_quality = {};
        m_scheduler.setNeighbourScores({});
    }
    // A polished picture, or the return to EmbedSOM's, is a new picture of the same model.
    const uint64_t key = st.version(Part::Model) * 1000003 + st.version(Part::Data) * 7919 +
                         st.version(Part::Gates) + m_scheduler.pictureSwitches() * 104729;
    if (key == m_key || m_task || !m_scheduler.idle()) return;
    const size_t n = st.data.events(), kept = st.gating.count(n);
    const auto& xy = m_scheduler.positions();
    if (kept < 50 || xy.size() != 2 * n) return;
    // Evenly spaced cells among those inside the gates: the same sample for every picture of
    // the same data (found in one pass, without a list of every cell inside: 10^8 of them
    // would take 800 MB).
    const size_t m = std::min(kSample, kept);
    Matrix high(m, st.data.points.cols), low(m, 2);
    m_cells.resize(m);
    auto take = [&](size_t j, size_t i) {
        m_cells[j] = i;
        std::copy_n(st.data.points.row(i), high.cols, high.row(j));
        low.at(j, 0) = xy[2 * i], low.at(j, 1) = xy[2 * i + 1];
    };
    if (st.gating.inside.empty()) {
        for (size_t j = 0; j < m; ++j) take(j, evenlySpaced(j, n, m));
    } else {
        size_t j = 0, rank = 0;
        for (size_t i = 0; i < n && j < m; ++i)
            if (st.gating.contains(i) && rank++ == evenlySpaced(j, kept, m)) take(j++, i);
    }
    m_key = key;
    m_data = st.version(Part::Data);
    m_switches = m_scheduler.pictureSwitches();
    m_quality.scoring = true;
    m_task = std::make_unique<QualityTask>(std::move(high), std::move(low), kNeighbours,
                                           *m_scheduler.backend().quality);
}

}  // namespace sepal::app
