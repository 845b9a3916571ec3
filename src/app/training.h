#pragma once
// Which trainers this build has and how the Training window's settings make one.

#include <memory>
#include <string>
#include <vector>

#include "app/state.h"
#include "core/train/trainer.h"

namespace sepal::app {

/// Trainer names offered in the Training window.
std::vector<std::string> availableTrainers();
/// A trainer for the settings, or nullptr (with `why`) when this build lacks it.
std::unique_ptr<Trainer> createTrainer(const TrainingSettings& settings, const LandmarkModel& model,
                                       size_t trainingPoints, std::string* why);

}  // namespace sepal::app
