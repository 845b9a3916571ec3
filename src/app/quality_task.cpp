#include "app/quality_task.h"

namespace sepal::app {

QualityTask::QualityTask(Matrix high, Matrix low, size_t k, QualityScorer& scorer)
    : m_high(std::move(high)), m_low(std::move(low)), m_k(k) {
    m_thread = std::thread([this, &scorer] {
        try {
            QualityParams params;
            params.k = m_k;
            params.sampleSize = 0;  // the cells given are the sample
            try {
                m_scores =
                    scorer.score(m_high.data(), m_high.rows, m_high.cols, m_low.data(), params);
            } catch (const std::exception&) {
                // The GPU failing (out of memory, a lost device) leaves the CPU's figures.
                m_scores = makeCpuQualityScorer()->score(m_high.data(), m_high.rows, m_high.cols,
                                                         m_low.data(), params);
            }
        } catch (const std::exception&) {
            m_scores = QualityScores{};
        }
        m_done = true;
    });
}

QualityTask::~QualityTask() {
    if (m_thread.joinable()) m_thread.join();
}

}  // namespace sepal::app
