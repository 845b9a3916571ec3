#pragma once
// How the Training window's settings make a trainer from core's trainer registry.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/state.h"
#include "core/knn/nearest_search.h"
#include "core/train/trainer.h"

namespace sepal::app {

/// Trainer names offered in the Training window: every entry of core's registry
/// (trainer_registry.h) in its order, those added by registerTrainer too.
std::vector<std::string> availableTrainers();

/// The JSON parameters the settings give their trainer: the registry's interactive overrides
/// (steps that fit a frame), each shown parameter at the value of the window's slider that sets
/// it (else at its start) within its range, and the seed; for an unknown trainer only the seed
/// (createTrainer then says what is wrong). Sigma is in map spacings: the SOM's radius is sigma
/// times mapSpacing, the model's median distance between neighbouring landmarks on the map.
nlohmann::json trainerParams(const TrainingSettings& settings, float mapSpacing = 1.0f);

/// A trainer for the settings (its nearest-landmark search is the backend's), on a map whose
/// landmarks lie mapSpacing apart (medianMapSpacing); throws InputError.
std::unique_ptr<Trainer> createTrainer(const TrainingSettings& settings, NearestSearch& search,
                                       float mapSpacing = 1.0f);

}  // namespace sepal::app
