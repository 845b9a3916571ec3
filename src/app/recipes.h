#pragma once
// Recipes: whole ways of making a model (train landmarks, lay them out, choose EmbedSOM's
// parameters), the same recipes `sepal-cli embed` runs, so that the app's picture is the CLI's.

#include <string>
#include <vector>

#include "app/state.h"
#include "core/pipeline/embed_pipeline.h"

namespace sepal::app {

/// One recipe as the Training window offers it. It names its trainers; what they do (grid or
/// count, which layout follows, which EmbedSOM parameters, the command line) comes from their
/// registry entries (core/train/trainer_registry.h).
struct Recipe {
    std::string name;         ///< identifier (sessions, scripts)
    std::string title;        ///< what the window shows
    std::string description;  ///< one sentence on what it does and when to use it
    bool trainsNewModel;      ///< false: it trains the landmarks the user has (a drawn map)
    /// The trainer of its landmarks (a drawn map: the trainer that refines the user's own)
    std::string landmarks;
    std::string layout;  ///< the layout after them; empty: the landmark trainer's followedBy
};

/// Every recipe, the default first.
const std::vector<Recipe>& recipes();
/// The recipe called `name`, or nullptr.
const Recipe* findRecipe(const std::string& name);

/// The embed settings of the settings' recipe: what `sepal-cli embed` runs with the matching
/// --landmarks, --layout, --seed and --train-sample (the default recipe is embed's default):
/// the recipe's landmark trainer with the settings' grid or count (as its entry starts), its
/// layout and the entry's EmbedSOM parameters. Throws InputError for an unknown recipe or
/// trainer, or impossible sizes.
EmbedSettings recipeSettings(const TrainingSettings& training);

/// The `sepal-cli embed` options that run the same recipe (shown to the user, for scripts).
std::string recipeCommandLine(const TrainingSettings& training);

/// True when the settings' recipe trains a new model on a grid of landmarks (the window asks
/// for rows and columns), false when it asks for a number of landmarks or trains the user's.
bool recipeUsesGrid(const TrainingSettings& training);

/// True when the settings' recipe trains a new model whose layout a label can supervise (its
/// layout trainer's entry says so: t-SNE, UMAP).
bool supervisable(const TrainingSettings& training);
/// What TrainingSettings::supervise holds to pull the app's populations together.
inline constexpr const char* kSupervisePopulations = "populations";
/// Per cell inside the gates, its label for the supervised layout the training settings ask
/// for: its population (-1 for none), or its value in that label column as sepal-cli reads the
/// files (-1 missing). Throws InputError when the data has no such column.
std::vector<int32_t> supervisionLabels(const State& state);
/// The label columns the data's files have (what the Training window offers to pull together).
std::vector<std::string> labelColumnNames(const Dataset& data);

}  // namespace sepal::app
