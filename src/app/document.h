#pragma once
// The user's document: the State, its undo history and every edit as an undoable command.
// It runs nothing in the background; the scheduler reads it and hands trained models back.

#include <memory>
#include <string>
#include <vector>

#include "app/command.h"
#include "app/log.h"
#include "app/state.h"

namespace sepal::app {

/// The state and its undo stack. Every edit here is one undo step unless said otherwise.
class Document {
  public:
    /// log: where edits report refusals and what they did.
    explicit Document(Log& log);

    // --- reading
    /// The state (read-only; edits go through the methods below).
    const State& state() const { return m_state; }
    /// The undo stack (labels for the Edit menu).
    const UndoStack& undoStack() const { return m_undo; }
    /// True while the landmarks are an untrained start (no recipe or training has run).
    bool untrained() const { return m_untrained; }
    /// Counts requests to fit the view to the picture (a new model was trained or opened).
    uint64_t fitRequests() const { return m_fitRequests; }
    /// Asks the window to fit the view to the picture (a polished picture spreads otherwise).
    void requestFit() { ++m_fitRequests; }
    /// A fresh untrained start model of the open data (a sample of the cells on their PCA plane).
    LandmarkModel startModel() const;

    // --- the history
    /// Undoes the last step.
    bool undo() { return m_undo.undo(m_state); }
    /// Redoes the last undone step.
    bool redo() { return m_undo.redo(m_state); }
    /// Applies and records a command.
    void execute(std::unique_ptr<Command> command) { m_undo.push(std::move(command), m_state); }
    /// Ends a gesture, so the next edit is a new undo step.
    void seal() { m_undo.seal(); }

    // --- settings (mergeKey folds slider drags into one step)
    /// Changes the colouring.
    void setColour(const ColourSettings& settings, const std::string& mergeKey = {});
    /// Changes the drawing settings.
    void setView(const ViewSettings& settings, const std::string& mergeKey = {});
    /// Changes the training settings.
    void setTraining(const TrainingSettings& settings, const std::string& mergeKey = {});
    /// Changes the EmbedSOM parameters (refused with a log line when invalid for the model).
    void setEmbed(const EmbedParams& params, const std::string& mergeKey = {});
    /// Shows or hides the landmark graph outside the history (a layout's own choice).
    void showGraph(bool show);

    // --- data and models
    /// True when `pipeline` would change the open data (logs why an empty one is refused).
    bool acceptsPipeline(const TransformPipeline& pipeline) const;
    /// Rebuilds the data through `pipeline` with a fresh start model; false when refused.
    bool setPipeline(const TransformPipeline& pipeline);
    /// Replaces transform, landmarks and parameters at once (an opened model file); the view
    /// is fitted to it.
    void adoptModel(const TransformPipeline& pipeline, const LandmarkModel& model,
                    const EmbedParams& params, const std::string& label);
    /// Replaces the model by `after` (before = the current model).
    void replaceModel(const LandmarkModel& after, const std::string& label);
    /// Takes a model a recipe trained with its parameters: one step when undoable, else in
    /// place (the picture a file opens with); the view is fitted to it.
    void adoptTrained(LandmarkModel model, const EmbedParams& params, const std::string& label,
                      bool undoable);
    /// The next model a recipe trains joins the last step (a gate change re-training on its
    /// cells is one undo step), unless another step comes between.
    void joinNextTraining() { m_joinTraining = m_undo.last(); }
    /// The model for edits in place (training steps); record them with recordModelEdit.
    LandmarkModel& liveModel() { return m_state.model; }
    /// Records edits made in place since `before` as one step.
    void recordModelEdit(LandmarkModel before, const std::string& label);
    /// Marks the landmarks as trained (a refining trainer ran on them).
    void markTrained() { m_untrained = false; }
    /// New data with its pipeline and a start model; forgets the history.
    void replaceData(Dataset data, TransformPipeline pipeline);
    /// A whole new state (a restored session), trained; forgets the history.
    void replaceAll(State next);

    // --- landmarks
    /// Starts a landmark drag: the model at this moment is the step's "before".
    void beginLandmarkDrag();
    /// Moves landmarks to 2D positions during a drag (live, not yet a step); xy: indices x 2.
    void dragLandmarks(const std::vector<size_t>& indices, const std::vector<float>& xy);
    /// Ends the drag: records one undo step.
    void endLandmarkDrag(const std::string& label);
    /// True between beginLandmarkDrag and endLandmarkDrag.
    bool dragging() const { return m_dragBefore != nullptr; }
    /// Adds a landmark at 2D (x, y), its data-space position fitted from its 2D neighbours.
    void addLandmark(float x, float y);
    /// Removes landmarks (at least 4 stay); lowers k to the count in the same step.
    void removeLandmarks(std::vector<size_t> indices);
    /// Locks or unlocks landmarks.
    void setLocked(const std::vector<size_t>& indices, bool locked);
    /// Replaces the model by a fresh untrained start model.
    void resetModel();

    // --- populations
    /// Puts the cells whose positions (xy, n x 2) lie inside the polygon into population
    /// `name` (created when new) and colours by population; returns how many were brushed.
    /// With `onlyFrom` naming a population, only its cells move (a split by lasso). When xy
    /// is not EmbedSOM's picture (a polished one), the stroke cannot label new files: the
    /// populations keep their cells, and the model labels by each landmark's cells.
    size_t brush(const std::vector<float>& polygon, const std::string& name,
                 const std::vector<float>& xy, const std::string& onlyFrom = {},
                 bool xyIsEmbedSom = true);
    /// Deletes population i (its cells become unassigned).
    void deletePopulation(size_t i);
    /// Renames or recolours population i.
    void editPopulation(size_t i, const Population& p);
    /// Merges population `from` into `into` (one undo step).
    void mergePopulations(size_t from, size_t into);
    /// Replaces every population and colours by population (one undo step named `label`).
    void replacePopulations(Populations next, const std::string& label);

    /// Replaces the sample metadata (one undo step; colours by its first column when it has
    /// one).
    void setMetadata(SampleMetadata metadata);

    // --- gates
    /// Replaces the gates (one undo step named `label`); the cells inside are found at once.
    /// False, with the reason logged, when a gate reads a channel a sample lacks.
    bool setGates(GateSelection gates, const std::string& label);

  private:
    Log& m_log;
    State m_state;
    UndoStack m_undo;
    const Command* m_joinTraining = nullptr;  // the step the next trained model joins
    bool m_untrained = true;
    uint64_t m_fitRequests = 0;
    std::unique_ptr<LandmarkModel> m_dragBefore;
};

}  // namespace sepal::app
