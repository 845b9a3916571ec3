#include "app/recipes.h"

#include <algorithm>
#include <cstdio>

#include "core/common/error.h"
#include "core/pipeline/samples.h"

namespace sepal::app {

const std::vector<Recipe>& recipes() {
    static const std::vector<Recipe> list = {
        {"default", "k-means + t-SNE (default)",
         "Many k-means landmarks laid out by t-SNE: the best picture of most cytometry data.",
         true},
        {"som", "SOM grid",
         "A self-organising map on a square grid, as the EmbedSOM R package makes it.", true},
        {"kmeans-graph", "k-means + force graph",
         "k-means landmarks joined to their nearest neighbours and laid out by forces.", true},
        {"drawn", "Map you draw",
         "A SOM trained on the landmarks you placed: Ctrl+click adds, drag arranges the map.",
         false},
    };
    return list;
}

const Recipe* findRecipe(const std::string& name) {
    for (const auto& r : recipes())
        if (r.name == name) return &r;
    return nullptr;
}

EmbedSettings recipeSettings(const TrainingSettings& t) {
    const Recipe* recipe = findRecipe(t.recipe);
    if (!recipe) throw InputError("unknown recipe '" + t.recipe + "'");
    if (t.landmarks < 4 || t.gridRows < 2 || t.gridCols < 2)
        throw InputError("a recipe needs at least 4 landmarks and a grid of 2 x 2");
    EmbedSettings s;
    s.seed = t.seed;
    s.trainSample = size_t(std::max(0, t.trainSample));
    if (t.recipe == "som") {
        s.landmarks = parseLandmarkSpec("som:" + std::to_string(t.gridRows) + "x" +
                                        std::to_string(t.gridCols));
    } else {
        s.landmarks = parseLandmarkSpec("kmeans:" + std::to_string(t.landmarks));
        if (t.recipe == "kmeans-graph") s.layout = "graph";
    }
    s.params = defaultEmbedParams(s.landmarks);
    return s;
}

std::string recipeCommandLine(const TrainingSettings& t) {
    const EmbedSettings s = recipeSettings(t);
    std::string spec = s.landmarks.kind + ":" +
                       (s.landmarks.kind == "kmeans" ? std::to_string(s.landmarks.count)
                                                     : std::to_string(s.landmarks.rows) + "x" +
                                                           std::to_string(s.landmarks.cols));
    std::string line = "--landmarks " + spec + " --seed " + std::to_string(s.seed) +
                       " --train-sample " + std::to_string(s.trainSample);
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
