#pragma once
// The Trainer interface: landmark placement that runs in bounded steps between GUI frames.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/landmark_model.h"
#include "core/train/whole_data_steps.h"

namespace sepal {

/// Training points: n x d row-major, transformed space (often a subsample of all events).
struct TrainingData {
    const float* points = nullptr;  ///< n x d values
    size_t n = 0;                   ///< number of points
    size_t d = 0;                   ///< dimensions; equals the model's dim
};

/// Moves landmarks (data space, 2D or both) a bounded amount of work per step; seeded.
class Trainer {
  public:
    virtual ~Trainer() = default;
    /// Its name in the registry (trainer_registry.h, trainer_names.h).
    virtual std::string name() const = 0;
    /// One bounded step; leaves locked landmarks alone. Returns false when there is nothing left.
    virtual bool step(LandmarkModel& model, const TrainingData& data) = 0;
    /// Fraction of a scheduled run done, in [0, 1]; negative for trainers without an end.
    virtual double progress() const = 0;
    /// A supervised layout: the similarity of two landmarks with different known labels
    /// (landmarkLabels: one per landmark, -1 unknown) is multiplied by exp(-strength), so that
    /// each label's landmarks are pulled together. Call before the first step; returns false for
    /// trainers that do not lay out landmarks by similarity (they ignore it).
    virtual bool supervise(std::vector<int32_t> landmarkLabels, float strength) {
        (void)landmarkLabels, (void)strength;
        return false;
    }
    /// From the next step on, each step is one step over every training cell through `steps`
    /// (null: over the TrainingData given to step() again); `steps` must outlive its use. Returns
    /// whether the trainer has such a step (Lloyd's k-means, the batch SOM) whatever `steps` is;
    /// the others ignore it.
    virtual bool useWholeData(WholeDataSteps* steps) {
        (void)steps;
        return false;
    }
};

}  // namespace sepal
