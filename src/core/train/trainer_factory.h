#pragma once
// Trainers by name with JSON parameters, for the command line, the GUI and sessions.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/knn/nearest_search.h"
#include "core/train/trainer.h"
#include "core/train/trainer_registry.h"

namespace sepal {

/// A registered trainer (trainer_registry.h) by name; `params` is null or an object whose keys
/// are the field names of that trainer's parameter struct (e.g. {"epochs": 10, "topology":
/// "free", "seed": 3}); absent keys keep their defaults. Throws InputError for an unknown name
/// (listing the registered ones), key or ill-typed value.
std::unique_ptr<Trainer> makeTrainer(const std::string& name, const nlohmann::json& params,
                                     NearestSearch& search);

}  // namespace sepal
