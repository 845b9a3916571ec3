#pragma once
// Every trainer Sepal has, in one list: name, what it moves, how its landmarks start, its
// parameters (defaults and the ones a window shows as sliders) and how to build it. The factory,
// sepal-cli's --landmarks and --layout, the app's Training window, the docs and the tests all
// read this list, so a new trainer is one entry here.

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/train/trainer.h"

namespace sepal {

/// Which positions a trainer moves.
enum class TrainerSpace {
    Data,    ///< data space (`high`); the 2D positions stay
    Layout,  ///< the 2D layout (`low`) of fixed data-space landmarks
};

/// How landmarks for a trainer start (InitMethod of init.h).
enum class TrainerInit {
    Grid,    ///< a rows x cols grid (the map of a SOM)
    Sample,  ///< a random sample of the data, 2D from its PCA coordinates
};

/// Whether a parameter takes whole numbers.
enum class ParamKind { Int, Float };

/// A parameter a window shows as a slider.
struct TrainerParam {
    std::string key;           ///< key in the trainer's JSON parameters
    std::string label;         ///< short slider label
    ParamKind kind;            ///< Int or Float
    double min;                ///< smallest value offered
    double max;                ///< largest value offered
    double start;              ///< where the slider starts (a usable value in [min, max])
    bool logarithmic = false;  ///< spans orders of magnitude: a logarithmic slider
};

/// Builds a trainer from JSON parameters (absent keys: defaults); throws InputError.
using TrainerMaker =
    std::function<std::unique_ptr<Trainer>(const nlohmann::json& params, NearestSearch& search)>;

/// One registered trainer.
struct TrainerInfo {
    std::string name;                 ///< what makeTrainer, --landmarks and --layout take
    std::string description;          ///< one line for help texts and tooltips
    TrainerSpace moves;               ///< data space or the 2D layout
    TrainerInit init;                 ///< how its landmarks start
    nlohmann::json defaults;          ///< every parameter with its default value
    nlohmann::json interactive;       ///< overrides for stepping between an app's frames
    std::vector<TrainerParam> shown;  ///< the parameters a window offers as sliders
    TrainerMaker make;                ///< the factory
};

/// Every trainer, data-space ones first, in the order menus list them.
const std::vector<TrainerInfo>& trainerRegistry();

/// The entry named `name`, or nullptr.
const TrainerInfo* findTrainer(const std::string& name);

/// The names of all trainers, in registry order.
std::vector<std::string> trainerNames();

/// The names of the trainers that move `space`, in registry order.
std::vector<std::string> trainerNames(TrainerSpace space);

}  // namespace sepal
