#pragma once
// How the Training window's settings make a trainer from the core trainer factory.

#include <memory>
#include <string>
#include <vector>

#include "app/state.h"
#include "core/knn/nearest_search.h"
#include "core/train/trainer.h"

namespace sepal::app {

/// Trainer names offered in the Training window.
std::vector<std::string> availableTrainers();
/// A trainer for the settings (its nearest-landmark search is the backend's); throws InputError.
std::unique_ptr<Trainer> createTrainer(const TrainingSettings& settings, NearestSearch& search);

}  // namespace sepal::app
