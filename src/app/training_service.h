#pragma once
// The workspace's training: the recipes that make a model (as sepal-cli embed makes it) in the
// background, and the refining trainer that moves the landmarks frame by frame.

#include <string>
#include <vector>

#include "app/recipe_task.h"
#include "app/service.h"

namespace sepal::app {

/// Training settings, recipes and the refining trainer.
class TrainingService : public Service {
  public:
    using Service::Service;

    /// Changes the training settings (mergeKey folds slider drags); a running SOM takes a new
    /// radius and rate at once.
    void setSettings(const TrainingSettings& settings, const std::string& mergeKey = {});
    /// Runs the training settings' recipe in the background (as `sepal-cli embed` does); the
    /// trained model replaces the current one as one undo step, or at once when `undoable` is
    /// false (the picture a file opens with).
    void runRecipe(bool undoable = true) { m_scheduler.runRecipe(undoable); }
    /// Cancels the recipe in progress (the model stays as it was).
    void cancelRecipe() { m_scheduler.cancelRecipe(); }
    /// The recipe training in progress, or nullptr.
    const RecipeTask* recipeRunning() const { return m_scheduler.recipeRunning(); }
    /// Starts or resumes refining the current landmarks with the settings' trainer.
    void start() { m_scheduler.startTraining(); }
    /// Pauses training (the run so far is one undo step).
    void pause() { m_scheduler.pauseTraining(); }
    /// True while a trainer refines the landmarks step by step.
    bool running() const { return m_scheduler.training(); }
    /// Progress of the training run in [0, 1], negative when unknown.
    double progress() const { return m_scheduler.trainingProgress(); }
    /// Starts the next frame's training step while the window presents this one, where steps
    /// run over every cell on the device (Scheduler::startStepAhead); nothing may touch the
    /// workspace until finishStepAhead. Returns whether it started.
    bool startStepAhead(double budgetMs) { return m_scheduler.startStepAhead(budgetMs); }
    /// Waits for the step startStepAhead began (at once when none runs).
    void finishStepAhead() { m_scheduler.finishStepAhead(); }
    /// True while the landmarks are an untrained start (no recipe or training has run).
    bool untrained() const { return m_document.untrained(); }
    /// Names of the refining trainers this build has (core's registry).
    std::vector<std::string> trainerNames() const;
};

}  // namespace sepal::app
