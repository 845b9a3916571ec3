#include "app/recipes.h"

#include <algorithm>
#include <cstdio>

#include "core/common/error.h"
#include "core/pipeline/landmark_spec.h"
#include "core/pipeline/samples.h"
#include "core/train/trainer_names.h"
#include "core/train/trainer_registry.h"

namespace sepal::app {

const std::vector<Recipe>& recipes() {
    namespace tn = trainer_name;
    static const std::vector<Recipe> list = {
        {"default", "k-means + t-SNE (default)",
         "Many k-means landmarks laid out by t-SNE: the best picture of most cytometry data.", true,
         tn::kKmeans, ""},
        {"som", "SOM grid",
         "A self-organising map on a square grid, as the EmbedSOM R package makes it.", true,
         tn::kSom, ""},
        {"kmeans-graph", "k-means + force graph",
         "k-means landmarks joined to their nearest neighbours and laid out by forces.", true,
         tn::kKmeans, tn::kGraph},
        {"drawn", "Map you draw",
         "A SOM trained on the landmarks you placed: Ctrl+click adds, drag arranges the map.",
         false, tn::kSom, ""},
    };
    return list;
}

const Recipe* findRecipe(const std::string& name) {
    for (const auto& r : recipes())
        if (r.name == name) return &r;
    return nullptr;
}

bool recipeUsesGrid(const TrainingSettings& t) {
    const Recipe* recipe = findRecipe(t.recipe);
    const TrainerInfo* trainer = recipe ? findTrainer(recipe->landmarks) : nullptr;
    return recipe && recipe->trainsNewModel && trainer && trainer->init == TrainerInit::Grid;
}

bool supervisable(const TrainingSettings& t) {
    const Recipe* recipe = findRecipe(t.recipe);
    if (!recipe || !recipe->trainsNewModel) return false;
    LandmarkSpec spec;
    spec.kind = recipe->landmarks;
    const TrainerInfo* layout = layoutTrainer(layoutAfter(spec, recipe->layout));
    return layout && layout->supervisable;
}

EmbedSettings recipeSettings(const TrainingSettings& t) {
    const Recipe* recipe = findRecipe(t.recipe);
    if (!recipe) throw InputError("unknown recipe '" + t.recipe + "'");
    if ((t.landmarks != 0 && t.landmarks < 4) || t.gridRows < 2 || t.gridCols < 2)
        throw InputError("a recipe needs at least 4 landmarks and a grid of 2 x 2");
    EmbedSettings s;
    s.seed = t.seed;
    s.trainSample = size_t(std::max(0, t.trainSample));
    s.landmarks = landmarkSpec(recipe->landmarks, size_t(t.gridRows), size_t(t.gridCols),
                               size_t(t.landmarks));
    s.layout = recipe->layout;
    s.params = defaultEmbedParams(s.landmarks);
    return s;
}

std::string recipeCommandLine(const TrainingSettings& t) {
    const EmbedSettings s = recipeSettings(t);
    std::string line = "--landmarks " + landmarkSpecText(s.landmarks) + " --seed " +
                       std::to_string(s.seed) + " --train-sample " + std::to_string(s.trainSample);
    if (!s.layout.empty()) line += " --layout " + s.layout;
    if (t.balanced) line += " --balanced";
    if (!t.supervise.empty() && supervisable(t)) {
        // The app's populations reach sepal-cli as the population column of an export.
        line +=
            " --supervise " + (t.supervise == kSupervisePopulations ? "population" : t.supervise);
        char strength[32];
        std::snprintf(strength, sizeof strength, "%g", double(t.supervisionStrength));
        line += " --supervision-strength " + std::string(strength);
    }
    return line;
}

std::vector<int32_t> supervisionLabels(const State& state) {
    const std::string& column = state.training.supervise;
    const std::vector<size_t> events = state.gating.events(state.data.events());
    std::vector<int32_t> codes;
    codes.reserve(events.size());
    if (column == kSupervisePopulations) {
        const auto& membership = state.populations.membership;
        for (size_t i : events)
            codes.push_back(i < membership.size() ? int32_t(membership[i]) - 1 : -1);
        return codes;
    }
    // The files' label column as one, categories merged as sepal-cli merges them.
    const auto labels = concatenatedLabels(state.data.tables, column);
    if (!labels)
        throw InputError("not every file has the label column " + column + " to pull together");
    for (size_t i : events) codes.push_back(i < labels->codes.size() ? labels->codes[i] : -1);
    return codes;
}

std::vector<std::string> labelColumnNames(const Dataset& data) {
    std::vector<std::string> names;
    for (const auto& t : data.tables)
        for (const auto& l : t.labels)
            if (std::find(names.begin(), names.end(), l.name) == names.end())
                names.push_back(l.name);
    return names;
}

}  // namespace sepal::app
