#pragma once
// Every trainer Sepal has, in one list: name, role, what it moves, how its landmarks start, its
// parameters (defaults, the app's overrides, embed's batch run, the sliders a window shows), what
// follows it, the EmbedSOM parameters that suit it and how to build it. The factory, sepal-cli's
// --landmarks and --layout, the app's recipes and Training window, the docs and the tests all
// read this list, so a new trainer is one entry: in buildRegistry, or added by registerTrainer.

#include <functional>
#include <list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/embedsom/embed_params.h"
#include "core/knn/nearest_search.h"
#include "core/train/trainer.h"

namespace sepal {

/// Which positions a trainer moves.
enum class TrainerSpace {
    Data,    ///< data space (`high`); the 2D positions stay
    Layout,  ///< the 2D layout (`low`) of fixed data-space landmarks
};

/// Which stage of embed (and of the app's recipes) a trainer can fill.
enum class TrainerRole {
    Landmarks,  ///< places landmarks in data space (--landmarks); a layout follows
    Layout,     ///< lays trained landmarks out in 2D (--layout)
    Both,       ///< either stage
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
    std::string name;                           ///< what makeTrainer, --landmarks and --layout take
    std::string description;                    ///< one line for help texts and tooltips
    TrainerRole role = TrainerRole::Landmarks;  ///< the stages it can fill
    TrainerSpace moves = TrainerSpace::Data;    ///< data space or the 2D layout
    TrainerInit init = TrainerInit::Sample;     ///< how its landmarks start
    // Every member has an initialiser: entries name only what they set (designated
    // initialisers), without -Wmissing-field-initializers.
    nlohmann::json defaults{};  ///< every parameter with its default value
    nlohmann::json interactive = nlohmann::json::object();  ///< overrides for an app's frames
    /// Overrides for embed's run to the end (its batch runner): every step until step() says
    /// there is nothing left, so these must give the run an end (epochs, iterations).
    nlohmann::json batch = nlohmann::json::object();
    /// Landmark trainers: the layout embed runs after them when none is asked for, a layout
    /// trainer's name or "grid" (keep the 2D start: a SOM's map).
    std::string followedBy{};
    EmbedParams embed{};        ///< landmark trainers: EmbedSOM parameters that suit them
    bool supervisable = false;  ///< layouts: Trainer::supervise pulls each label together
    /// Layouts: springs along the landmarks' k-NN graph, so the app keeps drawing its edges
    /// (other layouts scatter them into crossing lines).
    bool drawsGraph = false;
    std::vector<TrainerParam> shown{};  ///< the parameters a window offers as sliders
    TrainerMaker make{};                ///< the factory
};

/// The registry's storage: a list, so that entries stay where they are when others are added.
using TrainerList = std::list<TrainerInfo>;

/// Every trainer: the built-in ones (data-space ones first, in the order menus list them), then
/// those registerTrainer added, in the order they came.
const TrainerList& trainerRegistry();

/// Adds a trainer at the end of the registry; from then on the factory, --landmarks, --layout
/// and the app's Training window offer it. Throws std::invalid_argument for an entry that
/// cannot work: no name or factory, a name taken or holding ':', ',' or ' ', defaults without a
/// seed, a role that does not match what it moves, or a followedBy that is not a layout. Not
/// thread-safe: register before other threads read the registry (at start-up, in a test).
void registerTrainer(TrainerInfo info);

/// Removes a trainer that registerTrainer added (built-in ones stay); false when there is none.
/// Pointers to the other entries stay valid.
bool unregisterTrainer(const std::string& name);

/// The entry named `name`, or nullptr.
const TrainerInfo* findTrainer(const std::string& name);

/// The names of all trainers, in registry order.
std::vector<std::string> trainerNames();

/// The names of the trainers that move `space`, in registry order.
std::vector<std::string> trainerNames(TrainerSpace space);

/// The names of the trainers that can fill `role`'s stage (those of role Both too), in registry
/// order; TrainerRole::Both gives those that fill both.
std::vector<std::string> trainerNames(TrainerRole role);

/// True when `info` can train landmarks for embed (role Landmarks or Both).
bool placesLandmarks(const TrainerInfo& info);

/// True when `info` can lay landmarks out for embed (role Layout or Both).
bool laysOutLandmarks(const TrainerInfo& info);

}  // namespace sepal
