#pragma once
// A registry entry run as sepal-cli embed runs it: its landmarks started as the entry says, its
// trainer built with the entry's batch parameters, stepped until it has nothing left.

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/knn/nearest_search.h"
#include "core/train/init.h"
#include "core/train/trainer.h"
#include "core/train/trainer_registry.h"

namespace sepal {

/// How `info`'s landmarks start: a rows x cols grid (TrainerInit::Grid) or `count` points of the
/// data (TrainerInit::Sample), seeded.
InitParams startOf(const TrainerInfo& info, size_t rows, size_t cols, size_t count, uint64_t seed);

/// `info`'s trainer for a run to its end: the entry's batch parameters, then `overrides` (a JSON
/// object, or null), with `seed` unless the overrides hold one. Throws InputError for keys or
/// values the trainer does not take.
std::unique_ptr<Trainer> makeBatchTrainer(const TrainerInfo& info, const nlohmann::json& overrides,
                                          uint64_t seed, NearestSearch& search);

/// Fraction of a run done, in [0, 1].
using RunProgress = std::function<void(double fraction)>;

/// Steps `trainer` until it has nothing left; reports the fraction done whenever it grew by 5%
/// or more (trainers with a schedule), and 1 at the end.
void runToEnd(Trainer& trainer, LandmarkModel& model, const TrainingData& data,
              const RunProgress& progress = {});

}  // namespace sepal
