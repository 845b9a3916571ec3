#pragma once
// Online k-means of the landmarks in data space: a small rate keeps it smooth on screen. Lloyd's
// k-means is lloyd_trainer.h.

#include <cstdint>

#include "core/knn/nearest_search.h"
#include "core/train/point_stream.h"
#include "core/train/trainer.h"

namespace sepal {

/// Parameters of the online k-means.
struct KmeansParams {
    float rate = 0.01f;        ///< how far a winner moves towards each point (small: no flicker)
    size_t epochs = 0;         ///< passes over the data; 0 = run until stopped (no schedule)
    size_t stepPoints = 4096;  ///< point updates per step()
    size_t searchBatch = 32;   ///< winners per search call; 1 = strictly online
    size_t sampleSize = 0;     ///< 0 = all points, else a fixed random subsample
    uint64_t seed = 1;         ///< random seed (point order)
};

/// Online k-means: each point pulls only its nearest landmark; 2D positions are left alone.
class KmeansTrainer final : public Trainer {
  public:
    /// `search` must outlive the trainer.
    KmeansTrainer(const KmeansParams& params, NearestSearch& search);
    std::string name() const override;
    bool step(LandmarkModel& model, const TrainingData& data) override;
    /// Fraction of the epochs done; negative when it runs without end (epochs = 0).
    double progress() const override;
    /// Changes the learning rate from the next update on.
    void setRate(float rate) { m_params.rate = rate; }

  private:
    KmeansParams m_params;
    NearestSearch& m_search;
    PointStream m_stream;
    uint64_t m_iter = 0;
    uint64_t m_total = 0;
};

}  // namespace sepal
