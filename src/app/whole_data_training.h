#pragma once
// The refining trainer over every cell inside the gates, where the backend keeps the cells on
// its device (Backend::wholeData): Lloyd's k-means and the batch SOM step over all of them
// instead of the scheduler's subsample. The steps are built once per change of the cells (data
// or gates), when a trainer that takes them is about to step; a failure (no room on the device,
// ...) is logged and the trainer keeps to the subsample until the cells change again.

#include <cstddef>
#include <memory>
#include <string>

#include "app/log.h"
#include "app/state.h"
#include "core/train/trainer.h"
#include "core/train/whole_data_steps.h"

namespace sepal::app {

/// Whole-data steps for the scheduler's refining trainer.
class WholeDataTraining {
  public:
    /// `factory`: the backend's (empty: never over every cell).
    WholeDataTraining(WholeDataStepsFactory factory, Log& log);
    ~WholeDataTraining();

    /// The data or the gates changed: the next attach builds the steps again.
    void cellsChanged() { m_stale = true; }
    /// Hands the trainer the steps over every cell of `state` inside its gates, built here when
    /// missing, if the backend has them and the trainer takes them; `subsample` (the cells it
    /// trains on otherwise) goes into the log line of a failure; `resident`: the backend's
    /// projector holds the state's cells as they are (TrainingCells::resident). Call before
    /// each run of steps. Returns true when the trainer steps over every cell.
    bool attach(Trainer& trainer, const State& state, size_t subsample, bool resident = false);
    /// A step over every cell failed with `why`: the trainer goes back to the subsample, and the
    /// steps are not built again until the cells change (logged).
    void fail(Trainer& trainer, const std::string& why, size_t subsample);
    /// The number of cells the steps hold (0: none).
    size_t cells() const;
    /// True when the steps are built for the cells as they are: a trainer's next step neither
    /// builds nor uploads anything.
    bool ready() const { return m_steps && !m_stale; }
    /// The figures of every step of the steps held now (steps 0: none measured, or no steps
    /// since a failure).
    WholeDataFigures figures() const;

  private:
    void build(const State& state, size_t subsample, bool resident);

    WholeDataStepsFactory m_factory;
    Log& m_log;
    std::unique_ptr<WholeDataSteps> m_steps;
    bool m_stale = true;    // the cells changed since m_steps was built
    bool m_failed = false;  // building or a step failed for these cells
};

}  // namespace sepal::app
