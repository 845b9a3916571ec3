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
/// seed); alpha is unused and stepPoints bounds the points assigned per step().
class BatchSomTrainer final : public Trainer {
  public:
    /// `search` must outlive the trainer.
    BatchSomTrainer(const SomParams& params, NearestSearch& search);
    std::string name() const override { return trainer_name::kBatchSom; }
    bool step(LandmarkModel& model, const TrainingData& data) override;
    double progress() const override;
    /// The radius of the current epoch's update.
    float radius() const;

  private:
    void finishEpoch(LandmarkModel& model);

    SomParams m_params;
    NearestSearch& m_search;
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

}  // namespace sepal
