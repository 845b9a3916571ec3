#pragma once
// The batch SOM: each epoch moves every landmark to the neighbourhood-weighted mean of the
// points won by its map neighbours. Deterministic; no learning rate.

#include <cstdint>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/train/som_trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

/// The batch SOM; uses SomParams (epochs, radius schedule, topology, neighbourhood, sampleSize,
/// seed); alpha is unused and stepPoints bounds the points assigned per step(). Given whole-data
/// steps (useWholeData), each step is one epoch over every cell they keep instead (sampleSize
/// and stepPoints unused), with the same schedule and neighbourhood.
class BatchSomTrainer final : public Trainer {
  public:
    /// `search` must outlive the trainer.
    BatchSomTrainer(const SomParams& params, NearestSearch& search);
    std::string name() const override { return trainer_name::kBatchSom; }
    bool step(LandmarkModel& model, const TrainingData& data) override;
    double progress() const override;
    /// The radius of the current epoch's update.
    float radius() const;
    /// Each later step is one epoch over every cell of `steps` (null: the CPU again).
    bool useWholeData(WholeDataSteps* steps) override;

  private:
    void finishEpoch(LandmarkModel& model);
    // One epoch over every cell through m_whole.
    void wholeDataEpoch(LandmarkModel& model);

    SomParams m_params;
    NearestSearch& m_search;
    WholeDataSteps* m_whole = nullptr;  // every cell's epoch, when given
    float m_radiusStart = -1.0f;
    size_t m_epoch = 0;
    size_t m_cursor = 0;  // next point of the current epoch
    size_t m_epochSize = 0;
    std::vector<size_t> m_sample;  // empty: all points in order
    const float* m_source = nullptr;
    std::vector<double> m_sums;
    std::vector<double> m_counts;
    std::vector<float> m_buffer;
    std::vector<uint32_t> m_idx;
    std::vector<float> m_sq;
};

/// The batch SOM's neighbourhood at `radius`, g x g: entry [j g + c] is the weight of winner c's
/// points for landmark j, from the params' neighbourhood shape and the map distance of their
/// topology (what a whole-data epoch is given).
std::vector<float> batchSomWeights(const LandmarkModel& model, const SomParams& params,
                                   float radius);

}  // namespace sepal
