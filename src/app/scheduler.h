#pragma once
// What runs over frames and threads: the projection sweep, the refining trainer, the background
// file load and recipe, the colours. Each frame it reads the document and hands results back.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/colouring.h"
#include "app/document.h"
#include "app/load_task.h"
#include "app/log.h"
#include "app/projection_sweeper.h"
#include "app/recipe_task.h"
#include "backend/backends.h"
#include "core/train/trainer.h"

namespace sepal::app {

/// What a frame's work changed, for the renderer to upload.
struct FrameUpdate {
    std::vector<Range> positions;  ///< ranges of new 2D positions
    bool allPositions = false;     ///< the point count changed: upload everything
    bool colours = false;          ///< colours were recomputed
};

/// Per-frame timings and counts for the Stats window and --bench-frames.
struct WorkStats {
    double projectMs = 0;      ///< projection work in the last frame
    double trainMs = 0;        ///< training work in the last frame
    double fullSweepMs = 0;    ///< projection work one sweep of every point costs
    double sweepProgress = 1;  ///< fraction of the current sweep done
    uint64_t sweeps = 0;       ///< completed sweeps
    uint64_t projected = 0;    ///< points projected since the data was opened
    size_t cacheBytes = 0;     ///< the CPU path's neighbour cache (0: not kept)
    std::string cacheRefusal;  ///< why the neighbour cache is not kept ("" while it is)
};

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
    /// Stops the worker threads (load, recipe, sweep).
    ~Scheduler();

    // --- reading
    /// Backend name and why it was chosen.
    const Backend& backend() const { return m_backend; }
    /// 2D positions (n x 2), world units.
    const std::vector<float>& positions() const { return m_sweeper->positions(); }
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

    // --- projection elsewhere (the GPU writes positions straight into the vertex buffer)
    /// On: frame() stops projecting; positions come from acceptPositions().
    void useExternalProjection(bool on);
    /// Host copy of positions projected elsewhere for the current model (n x 2).
    void acceptPositions(const float* xy);
    /// Positions projected elsewhere have moved past the host copy (until acceptPositions):
    /// meanwhile the scheduler is not idle, so that nothing scores or exports stale positions.
    void externalMoved() { m_externalPending = true; }
    /// The picture's neighbourhoods cell by cell (the quality task's), for ColourMode::Neighbours.
    void setNeighbourScores(NeighbourScores scores) {
        m_neighbours = std::move(scores);
        ++m_neighboursVersion;
    }
    /// Records projection time spent elsewhere for the Stats window.
    void setExternalProjectMs(double ms) { m_stats.projectMs = ms, m_stats.fullSweepMs = ms; }
    /// Records the neighbour cache of the projection elsewhere (bytes, why none) for Stats.
    void setExternalCache(size_t bytes, const std::string& refusal) {
        m_stats.cacheBytes = bytes;
        m_stats.cacheRefusal = refusal;
    }
    /// Backend name and reason shown in Stats.
    void setBackendNote(const std::string& reason) { m_backend.reason = reason; }

    // --- files
    /// Starts reading files on a worker thread.
    void startLoading(const std::vector<std::string>& paths, bool addAsSamples);
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
    void updateStats();

    Document& m_document;
    Log& m_log;
    Backend m_backend;
    std::unique_ptr<Sweeper> m_sweeper;
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
    bool m_training = false;
    bool m_external = false;
    bool m_externalPending = false;  // the host copy lags the positions projected elsewhere
    uint64_t m_colourSeen = ~0ull, m_sweepsSeen = 0, m_dataSeen = 0, m_gatesSeen = 0;
    NeighbourScores m_neighbours;
    uint64_t m_neighboursVersion = 0;
    size_t m_pointsSeen = ~size_t(0);
};

}  // namespace sepal::app
