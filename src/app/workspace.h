#pragma once
// The interactive model behind the window, as the windows see it: a facade over the document
// (state, undo, edits), the scheduler (projection, training, background tasks) and the log, with
// the services that use them (opening, exports, sessions). It knows nothing of ImGui or OpenGL.

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "app/colouring.h"
#include "app/command.h"
#include "app/document.h"
#include "app/load_task.h"
#include "app/log.h"
#include "app/projection_sweeper.h"
#include "app/quality_task.h"
#include "app/recipe_task.h"
#include "app/scheduler.h"
#include "app/state.h"
#include "backend/backends.h"
#include "core/cluster/heatmap.h"
#include "core/cluster/population_tally.h"
#include "core/model/model_file.h"
#include "core/model/model_populations.h"
#include "core/pipeline/export_table.h"
#include "core/train/trainer.h"
#include "nlohmann/json.hpp"

namespace sepal::app {

/// The populations a model file carries, as the app makes them.
struct ModelLabels {
    std::vector<ModelPopulation> populations;  ///< named landmark sets
    PopulationRegions regions;                 ///< the lasso strokes (may be none)
    size_t disagreeing = 0;  ///< gated cells the model labels otherwise than the picture
};

/// The application's model. Every edit goes through the undo stack.
class Workspace {
  public:
    /// backendName: "auto", "cpu" or "cuda" (see makeBackend).
    explicit Workspace(const std::string& backendName = "auto");
    ~Workspace();

    // --- reading
    /// The state (read-only; edits go through the methods below).
    const State& state() const { return m_document.state(); }
    /// Backend name and why it was chosen.
    const Backend& backend() const { return m_scheduler.backend(); }
    /// 2D positions (n x 2), world units.
    const std::vector<float>& positions() const { return m_scheduler.positions(); }
    /// Per-cell RGBA colours (n x 4).
    const std::vector<uint8_t>& colours() const { return m_scheduler.colours(); }
    /// What the colour bar or legend shows.
    const ColourKey& colourKey() const { return m_scheduler.colourKey(); }
    /// The log.
    const std::vector<LogEntry>& log() const { return m_log.entries(); }
    /// Timings of the last frame.
    const WorkStats& stats() const { return m_scheduler.stats(); }
    /// The file loading in progress, or nullptr.
    const LoadTask* loading() const { return m_scheduler.loading(); }
    /// The recipe training in progress, or nullptr.
    const RecipeTask* recipeRunning() const { return m_scheduler.recipeRunning(); }
    /// Counts requests to fit the view to the picture (a new model was trained or opened).
    uint64_t fitRequests() const { return m_document.fitRequests(); }
    /// The undo stack (labels for the Edit menu).
    const UndoStack& undoStack() const { return m_document.undoStack(); }
    /// True while a trainer refines the landmarks step by step.
    bool training() const { return m_scheduler.training(); }
    /// True while the landmarks are an untrained start (no recipe or training has run).
    bool modelUntrained() const { return m_document.untrained(); }
    /// Progress of the training run in [0, 1], negative when unknown.
    double trainingProgress() const;
    /// Files opened recently, newest first.
    const std::vector<std::string>& recentFiles() const { return m_recent; }
    /// Names of the trainers this build has.
    std::vector<std::string> trainerNames() const;

    // --- the frame
    /// Polls tasks, trains and projects within budgetMs of work; says what to upload.
    FrameUpdate frame(double budgetMs);
    /// True when nothing is pending (sweep settled, no training, no loading).
    bool idle() const;

    // --- projection elsewhere (the GPU writes positions straight into the vertex buffer)
    /// On: frame() stops projecting; positions come from acceptPositions().
    void useExternalProjection(bool on);
    /// Host copy of positions projected elsewhere for the current model (n x 2).
    void acceptPositions(const float* xy);
    /// Positions projected elsewhere moved past the host copy (not idle until acceptPositions).
    void externalMoved() { m_scheduler.externalMoved(); }
    /// Records projection time spent elsewhere for the Stats window.
    void setExternalProjectMs(double ms) { m_scheduler.setExternalProjectMs(ms); }
    /// Records the neighbour cache of the projection elsewhere for the Stats window.
    void setExternalCache(size_t bytes, const std::string& refusal) {
        m_scheduler.setExternalCache(bytes, refusal);
    }
    /// Backend name and reason shown in Stats.
    void setBackendNote(const std::string& reason) { m_scheduler.setBackendNote(reason); }

    // --- files
    /// Starts loading files in the background (replacing what is open when they are read).
    void openFiles(const std::vector<std::string>& paths, bool addAsSamples = false);
    /// Cancels the load in progress.
    void cancelLoading();
    /// Opens tables now (used by the background load and by tests).
    void openTables(std::vector<io::Table> tables, bool addAsSamples = false);

    // --- edits (each undoable)
    /// Undo the last step.
    bool undo();
    /// Redo the last undone step.
    bool redo();
    /// Applies and records a command.
    void execute(std::unique_ptr<Command> command);
    /// Ends a gesture, so the next edit is a new undo step.
    void seal() { m_document.seal(); }
    /// Changes the transform pipeline (rebuilds the data, then trains the recipe again).
    void setPipeline(const TransformPipeline& pipeline);
    /// Compensates with the spillover matrix in `path` (io::readSpilloverFile); undoable.
    void loadSpillover(const std::string& path);
    /// Reads a sample metadata CSV (file, condition, patient, ...) and colours the samples by
    /// its first column; undoable. Errors are logged.
    void openSampleMetadata(const std::string& path);
    /// Changes the colouring (mergeKey folds slider drags).
    void setColour(const ColourSettings& settings, const std::string& mergeKey = {});
    /// Changes the drawing settings.
    void setView(const ViewSettings& settings, const std::string& mergeKey = {});
    /// Changes the training settings.
    void setTraining(const TrainingSettings& settings, const std::string& mergeKey = {});
    /// Changes the EmbedSOM parameters.
    void setEmbed(const EmbedParams& params, const std::string& mergeKey = {});
    /// Replaces the model by `after` as one undo step (before = the current model).
    void replaceModel(const LandmarkModel& after, const std::string& label);

    /// Starts a landmark drag: the model at this moment is the step's "before".
    void beginLandmarkDrag();
    /// Moves landmarks to 2D positions during a drag (live, not yet a step). xy: indices.size()
    /// x 2.
    void dragLandmarks(const std::vector<size_t>& indices, const std::vector<float>& xy);
    /// Ends the drag: records one undo step.
    void endLandmarkDrag(const std::string& label);
    /// True while landmarks are being dragged.
    bool dragging() const { return m_document.dragging(); }
    /// Adds a landmark at 2D (x, y), its data-space position fitted from its 2D neighbours.
    void addLandmark(float x, float y);
    /// Removes landmarks.
    void removeLandmarks(std::vector<size_t> indices);
    /// Locks or unlocks landmarks.
    void setLocked(const std::vector<size_t>& indices, bool locked);
    /// Builds a fresh untrained start model (a sample of the cells on their PCA plane).
    void resetModel();
    /// Opens a model file (`sepal-cli embed --model` or exportModel): its transform, landmarks
    /// and EmbedSOM parameters replace the current ones as one undo step. Throws InputError
    /// when the open data lacks the model's channels (nothing changes then).
    void openModel(const std::string& path);

    /// Puts the cells inside the polygon (world units, x y pairs) into population `name`
    /// (created when new); returns how many cells were brushed.
    size_t brush(const std::vector<float>& polygon, const std::string& name,
                 const std::string& onlyFrom = {});
    /// Deletes population i (its cells become unassigned).
    void deletePopulation(size_t i);
    /// Renames or recolours population i.
    void editPopulation(size_t i, const Population& p);
    /// Merges population `from` into `into` (its cells join `into`; one undo step).
    void mergePopulations(size_t from, size_t into);
    /// Writes populations.csv and medians.csv (sample,population,cells,fraction and population x
    /// marker medians) into `folder`, in sepal-cli apply's format; returns the paths written.
    std::vector<std::string> exportPopulationCounts(const std::string& folder) const;
    /// The rows of populations.csv for the open data, as exportPopulationCounts writes them
    /// (none without populations).
    std::vector<PopulationCount> populationCounts() const;
    /// Cells in each population (counted again only when the populations or the data changed:
    /// the Populations window asks every frame, and 10^8 cells take a tenth of a second).
    const std::vector<size_t>& populationSizes() const;
    /// Replaces the populations by k metaclusters of the landmarks (sepal-cli embed
    /// --metaclusters: the same groups, cells and names), one undo step; errors are logged.
    void populationsFromLandmarks(size_t k);
    /// Labels the cells with a model file's populations (each cell: its nearest landmark's, then
    /// the regions drawn), one undo step; nothing when there are none.
    void adoptModelPopulations(const LoadedModel& loaded, const std::string& source);
    /// The populations as the model file carries them: landmark sets and the regions drawn (or,
    /// for populations of unknown making, each landmark in the population most of its cells are
    /// in), with how many gated cells the model would label otherwise than the picture does.
    ModelLabels modelPopulations() const;
    /// Replaces the gates (one undo step named `label`); false, with the reason logged, when a
    /// sample lacks a gate's channel.
    bool setGates(std::vector<Gate> gates, const std::string& label) {
        return m_document.setGates(std::move(gates), label);
    }
    /// Writes the gates as a gates file (sepal-cli embed --gates reads it). Throws InputError.
    void exportGates(const std::string& path) const;
    /// The populations x markers heatmap of the open data (core's heatmapOf).
    Heatmap populationHeatmap() const;
    /// Writes the heatmap as PNG (as sepal-cli apply --heatmap draws it). Throws InputError.
    void exportHeatmap(const std::string& path) const;

    // --- training
    /// Runs the training settings' recipe in the background (as `sepal-cli embed` does); the
    /// trained model replaces the current one as one undo step, or at once when `undoable` is
    /// false (the picture a file opens with).
    void runRecipe(bool undoable = true);
    /// Cancels the recipe in progress (the model stays as it was).
    void cancelRecipe();
    /// Starts or resumes refining the current landmarks with the settings' trainer.
    void startTraining();
    /// Pauses training (the run so far is one undo step).
    void pauseTraining();

    // --- exports and sessions (throw InputError; the UI shows it)
    /// Writes the events with EmbedSOM1, EmbedSOM2, population and sample columns as CSV or FCS
    /// (by the extension) through core's writeExport, as sepal-cli embed and apply write them;
    /// returns the paths written (several with options.perPopulation).
    std::vector<std::string> exportEvents(const std::string& path,
                                          const ExportOptions& options = {}) const;
    /// The landmark model file of `sepal-cli embed --model` (transform, landmarks, parameters).
    void exportModel(const std::string& path);
    /// Session JSON: files, transforms, model, colours, populations, view (camera passed in).
    nlohmann::json sessionJson(const std::array<float, 3>& camera) const;
    /// Writes sessionJson to path (atomically).
    void saveSession(const std::string& path, const std::array<float, 3>& camera) const;
    /// Restores a session; returns the camera it stored. Keeps what was open when it fails.
    std::array<float, 3> loadSession(const std::string& path);

    /// Adds a line to the log (errors are also shown by the UI).
    void log(LogEntry::Level level, const std::string& text);
    /// Seconds since the workspace was created.
    double seconds() const;
    /// Counts of log entries per level seen by the UI (for the error banner).
    size_t errorCount() const { return m_log.errorCount(); }

    /// The document: state, history and edits (tests and tools read it directly).
    const Document& document() const { return m_document; }
    /// The scheduler: projection, training and background tasks.
    const Scheduler& scheduler() const { return m_scheduler; }

    /// How well the picture keeps the cells' neighbourhoods: trustworthiness and k-NN
    /// preservation (k = 10) over a sample of the cells in the gates, scored in the background
    /// once the picture settles after a change.
    struct PictureQuality {
        QualityScores scores;  ///< of the last picture scored
        bool valid = false;    ///< a picture has been scored
        bool scoring = false;  ///< a newer picture is being scored
    };
    /// The picture's quality (Stats shows it).
    const PictureQuality& quality() const { return m_quality; }
    /// Cells the quality is scored on (and the Neighbours colouring shows).
    static constexpr size_t kQualitySample = 5000;
    /// Neighbours the quality compares.
    static constexpr size_t kQualityK = 10;

  private:
    void addRecent(const std::string& path);
    /// The open data's populations counted per sample (with their values for the medians when
    /// `withValues`), as sepal-cli apply counts a cohort.
    PopulationTally populationTally(bool withValues) const;
    /// Takes a finished quality score, and starts one when the picture settled after a change.
    void updateQuality();

    // populationSizes() of the populations and data versions in m_sizesKey.
    mutable std::vector<size_t> m_sizes;
    mutable uint64_t m_sizesKey = ~0ull;

    // Declared in this order: the scheduler refers to the document and the log, and its worker
    // threads stop before either goes.
    Log m_log;
    Document m_document;
    Scheduler m_scheduler;
    std::vector<std::string> m_recent;
    std::unique_ptr<QualityTask> m_qualityTask;
    PictureQuality m_quality;
    std::vector<size_t> m_qualityCells;  // the cells being scored, ascending
    uint64_t m_qualityData = 0;          // the data version scored (or being scored)
    uint64_t m_qualityKey = 0;           // the versions of the picture scored last
};

}  // namespace sepal::app
