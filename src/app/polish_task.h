#pragma once
// A polish of EmbedSOM's picture (core/pipeline/polish.h) on a worker thread (the UMAP-like
// polish's heavy phases on the backend's GPU where it has one, params.device): the
// window keeps drawing, shows its progress and can cancel it.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/common/matrix.h"
#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"
#include "core/pipeline/polish.h"

namespace sepal::app {

/// Polishes one picture; poll done(), then read positions() or error().
class PolishTask {
  public:
    /// Starts at once: points (n x d, transformed, shared and never modified), the model they
    /// were projected through, EmbedSOM's positions xy (n x 2) to start from, and the cells
    /// polished (ascending; empty: all). Only those cells are polished, among themselves, as
    /// sepal-cli embed polishes the events its gates keep; the others keep their position.
    PolishTask(std::shared_ptr<const Matrix> points, LandmarkModel model, std::vector<float> xy,
               PolishParams params, std::vector<size_t> cells = {});
    /// Cancels and waits for the worker.
    ~PolishTask();
    PolishTask(const PolishTask&) = delete;
    PolishTask& operator=(const PolishTask&) = delete;

    /// Asks the worker to stop after its current epoch.
    void cancel() { m_cancel = true; }
    /// True when the worker finished, failed or was cancelled.
    bool done() const { return m_done.load(); }
    /// Share of the epochs done, in [0, 1].
    double progress() const { return m_progress.load(); }
    /// After done(): true when it was cancelled.
    bool cancelled() const { return m_cancel.load(); }
    /// After done(): why it failed ("" when it did not).
    const std::string& error() const { return m_error; }
    /// After done(): what the user should know of how it ran ("" when nothing), e.g. that the
    /// GPU failed and the CPU polished.
    const std::string& note() const { return m_note; }
    /// After done() without error or cancel: the polished positions (n x 2).
    std::vector<float>& positions() { return m_xy; }
    /// Seconds the polish took (after done()).
    double seconds() const { return m_seconds; }

  private:
    /// Polishes m_xy (all cells, or m_cells among themselves); false when stopped.
    bool polishCells(NearestSearch& search);

    std::shared_ptr<const Matrix> m_points;
    LandmarkModel m_model;
    std::vector<float> m_xy;
    PolishParams m_params;
    std::vector<size_t> m_cells;  // the cells polished (empty: all)
    std::string m_error, m_note;
    double m_seconds = 0;
    std::atomic<double> m_progress{0.0};
    std::atomic<bool> m_cancel{false}, m_done{false};
    std::thread m_thread;
};

}  // namespace sepal::app
