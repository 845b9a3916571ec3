#pragma once
// What runs over frames and threads: the projection (one driver: the CPU sweep or the GPU), the
// refining trainer, the background file load and recipe, the colours. Each frame it reads the
// document and hands results back.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/colouring.h"
#include "app/document.h"
#include "app/gpu_projection.h"
#include "app/load_task.h"
#include "app/log.h"
#include "app/polished_picture.h"
#include "app/polished_view.h"
#include "app/projection_driver.h"
#include "app/projection_sweeper.h"
#include "app/recipe_task.h"
#include "app/whole_data_training.h"
#include "app/worker_thread.h"
#include "backend/backends.h"
#include "core/train/trainer.h"

namespace sepal::app {

/// Tables a finished background load read, to be opened.
struct LoadedFiles {
    std::vector<io::Table> tables;  ///< one per file, in the order asked
    bool addAsSamples = false;      ///< added to what is open rather than replacing it
};

/// Runs the document's background work within each frame's budget.
class Scheduler {
  public:
    /// backendName: "auto", "cpu" or "cuda" (see makeBackend; falls back to the CPU).
    Scheduler(const std::string& backendName, Document& document, Log& log);
    /// On a backend made elsewhere (a test's, with its own whole-data steps).
    Scheduler(Backend backend, Document& document, Log& log);
    /// Stops the worker threads (load, recipe, sweep).
    ~Scheduler();

    // --- reading
    /// Backend name and why it was chosen.
    const Backend& backend() const { return m_backend; }
    /// 2D positions (n x 2), world units: the polished picture's while one is shown, else
    /// EmbedSOM's.
    const std::vector<float>& positions() const {
        return m_polished ? m_polished->xy : m_sweeper->positions();
    }
    /// EmbedSOM's positions (n x 2), what a polish starts from.
    const std::vector<float>& embedSomPositions() const { return m_sweeper->positions(); }
    /// The cells as the projection reads them (n x d, transformed; shared, never modified).
    std::shared_ptr<const Matrix> points() const { return m_points; }
    /// Per-cell RGBA colours (n x 4).
    const std::vector<uint8_t>& colours() const { return m_rgba; }
    /// What the colour bar or legend shows.
    const ColourKey& colourKey() const { return m_key; }
    /// Timings of the last frame.
    const WorkStats& stats() const { return m_stats; }
    /// The file loading in progress, or nullptr.
    const LoadTask* loading() const { return m_load.get(); }
    /// The recipe training in progress, or nullptr.
    const RecipeTask* recipeRunning() const { return m_recipe.get(); }
    /// True while a trainer refines the landmarks step by step.
    bool training() const { return m_training; }
    /// Progress of the training run in [0, 1], negative when unknown.
    double trainingProgress() const;

    // --- the frame
    /// Takes a recipe's model, trains and projects within budgetMs of work; says what to upload.
    FrameUpdate frame(double budgetMs);
    /// True when nothing is pending (sweep settled, no training, no loading).
    bool idle() const;
    /// Starts the next frame's training step on a worker thread, where this frame's ran over
    /// every cell on the device: the GPU trains while the window presents the frame (the swap
    /// waits for the display, not for the GPU). The next frame() takes that step as its own.
    /// Until finishStepAhead nothing may read or edit the document. Returns whether it started.
    bool startStepAhead(double budgetMs);
    /// Waits for the step startStepAhead began (at once when none runs).
    void finishStepAhead();

    // --- the projection
    /// Projects on the device from now on: `projector` keeps the cells there and writes their
    /// positions into `target` (the window's vertex buffer), until a device failure sends the
    /// projection back to the CPU. Both must live until the next call; nulls project on the
    /// CPU again (the window going before the workspace calls it so).
    void projectOnDevice(ResidentProjector* projector, DevicePositions* target);
    /// The driver that projects now (the window asks it where the drawn positions are); under
    /// a polished picture, a view of it that draws the host's positions (polished_view.h).
    ProjectionDriver& projection() {
        return m_polished ? static_cast<ProjectionDriver&>(m_polishedView) : *m_driver;
    }
    /// The driver that projects now, as the window sees it.
    const ProjectionDriver& projection() const {
        return m_polished ? static_cast<const ProjectionDriver&>(m_polishedView) : *m_driver;
    }

    // --- the polished picture
    /// Shows `picture` instead of EmbedSOM's until the data, the model, the EmbedSOM parameters
    /// or the gates change or returnToEmbedSom() is called; false (nothing shown) when its key
    /// is not the current picture's or its size not the data's.
    bool showPolished(PolishedPicture picture);
    /// The polished picture shown, or nullptr while EmbedSOM's is.
    const PolishedPicture* polished() const { return m_polished.get(); }
    /// Shows EmbedSOM's picture again.
    void returnToEmbedSom();
    /// Counts the changes between EmbedSOM's picture and a polished one (the quality rescores).
    uint64_t pictureSwitches() const { return m_pictureSwitches; }
    /// The picture's neighbourhoods cell by cell (the quality task's), for ColourMode::Neighbours.
    void setNeighbourScores(NeighbourScores scores) {
        m_neighbours = std::move(scores);
        ++m_neighboursVersion;
    }
    /// Each population's change between the compared conditions (the Compare window's logFC;
    /// NaN where untested), for ColourMode::Change.
    void setPopulationChange(PopulationChange change) {
        m_change = std::move(change);
        ++m_changeVersion;
    }
    /// The state markers beside the embedded columns, for colouring by one of them: a function
    /// that gives their values and names (PopulationService::stateColumns, made when first asked).
    using StateColumnsSource =
        std::function<std::pair<const Matrix*, const std::vector<std::string>*>()>;
    void setStateColumnsSource(StateColumnsSource source) { m_stateColumns = std::move(source); }

    // --- files
    /// Starts reading files on a worker thread.
    void startLoading(const std::vector<std::string>& paths, bool addAsSamples);
    /// Starts making files on a worker thread (FileMaker), then reading them in place of what is
    /// open; `making` is what the progress line says meanwhile.
    void startMaking(FileMaker make, const std::string& making);
    /// Cancels the load in progress.
    void cancelLoading();
    /// The tables of a load that finished since the last call (failures are logged here).
    std::optional<LoadedFiles> takeLoaded();

    // --- training
    /// Runs the training settings' recipe in the background; its model replaces the current
    /// one as one undo step, or at once when `undoable` is false.
    void runRecipe(bool undoable);
    /// Cancels the recipe in progress (the model stays as it was).
    void cancelRecipe();
    /// Starts or resumes refining the current landmarks with the settings' trainer.
    void startTraining();
    /// Pauses training (the run so far is one undo step).
    void pauseTraining();
    /// Prepares for new training settings (a running SOM takes a new radius and rate at once);
    /// call before the document changes them.
    void retune(const TrainingSettings& settings);
    /// Pauses training and drops the recipe in progress silently (the model is being replaced).
    void stopModelWork();
    /// Forgets the trainer (the data it was made for is going away).
    void forgetTrainer() { m_trainer.reset(); }

  private:
    void dataChanged();
    void gatesChanged();
    void pollRecipe();
    void trainStep(double budgetMs);
    /// Makes the trainer of the Training settings for the model as it is, unless one is kept;
    /// false (logged) when it cannot be made.
    bool makeTrainer();
    void updateStats();
    /// Projects this frame with the driver, back on the CPU for good when the device gave up.
    void project(double budgetMs, FrameUpdate& update);

    Document& m_document;
    Log& m_log;
    Backend m_backend;
    std::unique_ptr<Sweeper> m_sweeper;           // the host positions, and the CPU's projection
    std::shared_ptr<const Matrix> m_points;       // the sweeper's cells (a polish reads them)
    std::unique_ptr<PolishedPicture> m_polished;  // shown instead of EmbedSOM's picture
    bool m_polishedDropped = false;  // a polish came or went: the next frame uploads it all
    uint64_t m_pictureSwitches = 0;
    std::unique_ptr<ProjectionDriver> m_cpu, m_device;
    ProjectionDriver* m_driver = nullptr;   // m_device while it works, else m_cpu
    PolishedView m_polishedView{m_driver};  // what the window sees under a polished picture
    std::vector<uint8_t> m_rgba;
    ColourKey m_key;
    WorkStats m_stats;
    std::unique_ptr<LoadTask> m_load;
    bool m_loadAdds = false;
    std::unique_ptr<RecipeTask> m_recipe;
    bool m_recipeUndoable = true;
    std::unique_ptr<Trainer> m_trainer;
    float m_mapSpacing = 1.0f;  // the map's spacing when m_trainer was made (sigma's unit)
    std::unique_ptr<LandmarkModel> m_trainBefore;
    std::vector<float> m_trainSample;
    std::unique_ptr<WholeDataTraining> m_wholeData;  // every cell, where the backend keeps them
    bool m_training = false;
    bool m_stepAheadAllowed;      // SEPAL_STEP_AHEAD is not 0
    WorkerThread m_ahead;         // runs the next frame's training step (startStepAhead)
    bool m_steppedAhead = false;  // the next frame's step has run: frame() does not step
    std::string m_aheadError;     // what ended the step ahead, if anything did
    uint64_t m_colourSeen = ~0ull, m_sweepsSeen = 0, m_dataSeen = 0, m_gatesSeen = 0;
    NeighbourScores m_neighbours;
    uint64_t m_neighboursVersion = 0;
    PopulationChange m_change;
    uint64_t m_changeVersion = 0;
    StateColumnsSource m_stateColumns;
    /// projectionKey() of the data and model whose projection failed (it is not tried again).
    std::optional<uint64_t> m_failedProjection;
    /// The data's and the model's versions, together.
    uint64_t projectionKey() const;
    /// True while the data and model are those whose projection failed.
    bool projectionFailed() const;
    size_t m_pointsSeen = ~size_t(0);
};

}  // namespace sepal::app
