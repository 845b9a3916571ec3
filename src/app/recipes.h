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

}  // namespace sepal::app
