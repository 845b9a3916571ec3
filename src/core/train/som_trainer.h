#pragma once
// The online self-organising map of the EmbedSOM R package, on a grid or on any 2D layout.

#include <cstdint>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/train/point_stream.h"
#include "core/train/topology.h"
#include "core/train/trainer.h"
#include "core/train/trainer_names.h"

namespace sepal {

/// How much a landmark moves with the winner, by map distance.
enum class Neighbourhood {
    Square,    ///< all landmarks within the radius move fully (the R package)
    Gaussian,  ///< exp(-dist^2 / (2 radius^2)): a smooth falloff
};

/// Parameters of the online and batch SOM.
struct SomParams {
    size_t epochs = 10;         ///< passes over the data the schedule runs for (R: rlen)
    float alphaStart = 0.05f;   ///< learning rate at the start (online SOM only)
    float alphaEnd = 0.01f;     ///< learning rate at the end (online SOM only)
    float radiusStart = -1.0f;  ///< map radius at the start; < 0: 0.67 quantile of map distances
    float radiusEnd = 0.0f;     ///< map radius at the end
    TopologyMetric topology = TopologyMetric::Chebyshev;  ///< how map distances are measured
    Neighbourhood neighbourhood = Neighbourhood::Square;  ///< neighbourhood shape
    size_t stepPoints = 4096;  ///< point updates per step() (bounds the work of one GUI frame)
    size_t searchBatch = 32;   ///< winners per search call; 1 = strictly online
    size_t sampleSize = 0;     ///< 0 = train on all points, else on a fixed random subsample
    uint64_t seed = 1;         ///< random seed (point order)
};

/// Online SOM: each point pulls its winner's map neighbourhood towards it (data space only).
/// The map is the model's 2D positions, read every step, so dragging a landmark reshapes it.
class SomTrainer final : public Trainer {
  public:
    /// `search` finds winners and must outlive the trainer.
    SomTrainer(const SomParams& params, NearestSearch& search);
    std::string name() const override { return trainer_name::kSom; }
    bool step(LandmarkModel& model, const TrainingData& data) override;
    /// Fraction of the schedule done; negative while the user holds radius and alpha.
    double progress() const override;
    /// Holds the radius and learning rate at these values (manual mode, no end).
    void setManual(float radius, float alpha);
    /// Returns to the schedule where it was left.
    void setScheduled() { m_manual = false; }
    /// The radius the next update uses.
    float radius() const;
    /// The learning rate the next update uses.
    float alpha() const;

  private:
    SomParams m_params;
    NearestSearch& m_search;
    PointStream m_stream;
    SortedMapNeighbours m_lists;
    uint64_t m_iter = 0;
    uint64_t m_total = 0;
    float m_radiusStart = -1.0f;
    bool m_manual = false;
    float m_manualRadius = 0.0f;
    float m_manualAlpha = 0.0f;
};

/// Moves landmark j (unless its data-space position is locked) towards x by weight w.
void pullLandmark(LandmarkModel& model, size_t j, const float* x, float w);

/// Neighbourhood weight of a landmark at map distance `dist` from the winner (0 = unaffected).
float neighbourhoodWeight(Neighbourhood shape, float dist, float radius);

}  // namespace sepal
