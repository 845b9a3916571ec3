#pragma once
// The picture's neighbourhood quality (core's trustworthiness and k-NN preservation) scored on
// a sample of cells on a worker thread, so that the Stats window can say whether an edit kept
// or tore the neighbourhoods without the window waiting.

#include <atomic>
#include <thread>

#include "core/common/matrix.h"
#include "core/metrics/quality.h"

namespace sepal::app {

/// Scores one picture; poll done(), then read scores().
class QualityTask {
  public:
    /// Starts at once on copies of the sampled cells: high (m x d, transformed) and low (m x 2),
    /// scored by `scorer` (the backend's: the GPU when there is one), which outlives the task.
    QualityTask(Matrix high, Matrix low, size_t k, QualityScorer& scorer);
    /// Waits for the worker.
    ~QualityTask();
    QualityTask(const QualityTask&) = delete;
    QualityTask& operator=(const QualityTask&) = delete;
    /// True when the scores are ready (or scoring failed: then they are zero).
    bool done() const { return m_done.load(); }
    /// After done(): the scores.
    const QualityScores& scores() const { return m_scores; }

  private:
    Matrix m_high, m_low;
    size_t m_k;
    QualityScores m_scores;
    std::atomic<bool> m_done{false};
    std::thread m_thread;
};

}  // namespace sepal::app
