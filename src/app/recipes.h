#pragma once
// Recipes: whole ways of making a model (train landmarks, lay them out, choose EmbedSOM's
// parameters), the same recipes `sepal-cli embed` runs, so that the app's picture is the CLI's.

#include <string>
#include <vector>

#include "app/state.h"
#include "core/pipeline/embed_pipeline.h"

namespace sepal::app {

/// One recipe as the Training window offers it.
struct Recipe {
    std::string name;         ///< identifier (sessions, scripts)
    std::string title;        ///< what the window shows
    std::string description;  ///< one sentence on what it does and when to use it
    bool trainsNewModel;      ///< false: it trains the landmarks the user has (a drawn map)
};

/// Every recipe, the default first.
const std::vector<Recipe>& recipes();
/// The recipe called `name`, or nullptr.
const Recipe* findRecipe(const std::string& name);

/// The embed settings of the settings' recipe: what `sepal-cli embed` runs with the matching
/// --landmarks, --layout, --seed and --train-sample (the default recipe is embed's default).
/// Throws InputError for an unknown recipe or impossible sizes.
EmbedSettings recipeSettings(const TrainingSettings& training);

/// The `sepal-cli embed` options that run the same recipe (shown to the user, for scripts).
std::string recipeCommandLine(const TrainingSettings& training);

/// True when the settings' recipe lays its landmarks out by t-SNE, which a label can supervise.
inline bool supervisable(const TrainingSettings& t) {
    return t.recipe == "default";
}
/// What TrainingSettings::supervise holds to pull the app's populations together.
inline constexpr const char* kSupervisePopulations = "populations";
/// Per cell inside the gates, its label for the supervised layout the training settings ask
/// for: its population (-1 for none), or its value in that label column as sepal-cli reads the
/// files (-1 missing). Throws InputError when the data has no such column.
std::vector<int32_t> supervisionLabels(const State& state);
/// The label columns the data's files have (what the Training window offers to pull together).
std::vector<std::string> labelColumnNames(const Dataset& data);

}  // namespace sepal::app
