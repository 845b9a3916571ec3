#pragma once
// The parameter-less SOM (Berglund and Sitte): no schedule; it keeps adapting to new data.

#include <cstdint>

#include "core/knn/nearest_search.h"
#include "core/train/point_stream.h"
#include "core/train/topology.h"
#include "core/train/trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

/// Parameters of the parameter-less SOM.
struct PlsomParams {
    float beta = 0.0f;  ///< neighbourhood scale; <= 0: (rows + cols) / 2 of the map
    size_t epochs = 0;  ///< 0: no end (the GUI); else stop after epochs x n updates (headless)
    size_t stepPoints = 4096;  ///< point updates per step()
    size_t searchBatch = 32;   ///< winners per search call; 1 = strictly online
    size_t sampleSize = 0;     ///< 0 = all points, else a fixed random subsample
    uint64_t seed = 1;         ///< random seed (point order)
};

/// PLSOM: for point x with winner c, epsilon = |x - w_c| / rho (rho the largest such distance
/// seen), Theta = beta ln(1 + epsilon (e - 1)); each landmark j moves by
/// epsilon exp(-dist(j, c)^2 / Theta^2) towards x, dist on the map in units of its spacing.
class PlsomTrainer final : public Trainer {
  public:
    /// `search` must outlive the trainer.
    PlsomTrainer(const PlsomParams& params, NearestSearch& search);
    std::string name() const override { return trainer_name::kPlsom; }
    /// Returns true while there is work left: always, unless `epochs` bounds the run.
    bool step(LandmarkModel& model, const TrainingData& data) override;
    /// Negative (no schedule), unless `epochs` bounds the run: then the fraction done.
    double progress() const override;
    /// The running maximum rho of the winner distance.
    float rho() const { return m_rho; }

  private:
    PlsomParams m_params;
    NearestSearch& m_search;
    PointStream m_stream;
    SortedMapNeighbours m_lists;
    float m_rho = 0.0f;
    uint64_t m_iter = 0;
    uint64_t m_total = 0;
    uint64_t m_mapVersion = ~uint64_t{0};
    float m_spacing = 1.0f;
    float m_beta = 1.0f;
};

}  // namespace sepal
