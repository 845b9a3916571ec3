#include "app/training.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/train/trainer_factory.h"
#include "core/train/trainer_registry.h"

namespace sepal::app {
namespace {

// The Training window's sliders that all trainers share, by the parameter keys they set.
std::optional<double> sharedSlider(const TrainingSettings& s, const std::string& key) {
    if (key == "epochs") return s.epochs;
    if (key == "alphaStart" || key == "rate") return s.alpha;
    if (key == "radiusStart") return s.sigma;
    if (key == "k") return s.graphK;
    return std::nullopt;
}

}  // namespace

std::vector<std::string> availableTrainers() {
    return trainerNames();
}

nlohmann::json trainerParams(const TrainingSettings& s, float mapSpacing) {
    const TrainerInfo* info = findTrainer(s.trainer);
    if (!info) return {{"seed", s.seed}};  // makeTrainer says what is wrong
    nlohmann::json p = info->interactive;
    for (const auto& param : info->shown) {
        const double v =
            std::clamp(sharedSlider(s, param.key).value_or(param.start), param.min, param.max);
        if (param.kind == ParamKind::Int)
            p[param.key] = std::llround(v);
        else if (param.key == "radiusStart")
            // A free layout (k-means with a force or t-SNE layout) is not a unit grid: in
            // absolute units, 1.5 covered a whole map of spacing 0.1 and every step pulled
            // every landmark to the same cell.
            p[param.key] = v * double(mapSpacing);
        else
            p[param.key] = v;
    }
    p["seed"] = s.seed;
    return p;
}

std::unique_ptr<Trainer> createTrainer(const TrainingSettings& s, NearestSearch& search,
                                       float mapSpacing) {
    return makeTrainer(s.trainer, trainerParams(s, mapSpacing), search);
}

}  // namespace sepal::app
