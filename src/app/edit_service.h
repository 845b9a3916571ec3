#pragma once
// The workspace's edits and their undo: settings, the model and the landmarks. Each edit is one
// undo step unless said otherwise; training pauses before the history moves.

#include <memory>
#include <string>
#include <vector>

#include "app/command.h"
#include "app/service.h"

namespace sepal::app {

/// Undo, redo and every edit of the settings and landmarks.
class EditService : public Service {
  public:
    using Service::Service;

    /// The undo stack (labels for the Edit menu).
    const UndoStack& undoStack() const { return m_document.undoStack(); }
    /// Undoes the last step.
    bool undo();
    /// Redoes the last undone step.
    bool redo();
    /// Applies and records a command.
    void execute(std::unique_ptr<Command> command) { m_document.execute(std::move(command)); }
    /// Ends a gesture, so the next edit is a new undo step.
    void seal() { m_document.seal(); }

    /// Changes the colouring (mergeKey folds slider drags).
    void setColour(const ColourSettings& settings, const std::string& mergeKey = {});
    /// Changes the drawing settings.
    void setView(const ViewSettings& settings, const std::string& mergeKey = {});
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
};

}  // namespace sepal::app
