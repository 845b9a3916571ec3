#pragma once
// Running a recipe (core's trainLandmarks, as `sepal-cli embed` runs it) on a worker thread with
// progress and cancel, so the window keeps drawing while a model is trained.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/common/matrix.h"
#include "core/model/landmark_model.h"
#include "core/pipeline/embed_pipeline.h"

namespace sepal::app {

/// Trains a model from `points` by `settings` on a worker thread; poll done(), then take it.
class RecipeTask {
  public:
    /// Starts at once. points: n x d transformed events (shared: the task keeps them alive).
    RecipeTask(std::shared_ptr<const Matrix> points, EmbedSettings settings, std::string title);
    /// Cancels and waits for the worker.
    ~RecipeTask();
    RecipeTask(const RecipeTask&) = delete;
    RecipeTask& operator=(const RecipeTask&) = delete;

    /// Progress of the current stage in [0, 1].
    double progress() const { return m_progress.load(); }
    /// The stage running now ("train", "layout").
    std::string stage() const;
    /// What is being trained (the recipe's title).
    const std::string& title() const { return m_title; }
    /// True when the worker has finished (trained, failed or cancelled).
    bool done() const { return m_done.load(); }
    /// Asks the worker to stop at its next progress report; the result is then discarded.
    void cancel() { m_cancel = true; }
    /// True when cancel() was called.
    bool cancelled() const { return m_cancel.load(); }
    /// After done(): the trained model (nullopt when it failed or was cancelled).
    std::optional<LandmarkModel> takeModel();
    /// After done(): the error message, empty when it trained.
    std::string error() const;
    /// After done(): events left out of training for a missing (NaN or infinite) value.
    size_t skippedNonFinite() const { return m_skipped.load(); }
    /// The settings it runs.
    const EmbedSettings& settings() const { return m_settings; }

  private:
    void run();
    std::shared_ptr<const Matrix> m_points;
    EmbedSettings m_settings;
    std::string m_title;
    std::optional<LandmarkModel> m_model;
    std::string m_error, m_stage;
    mutable std::mutex m_mutex;
    std::atomic<double> m_progress{0.0};
    std::atomic<size_t> m_skipped{0};
    std::atomic<bool> m_done{false}, m_cancel{false};
    std::thread m_thread;
};

}  // namespace sepal::app
