#pragma once
// Random training points in small batches with their nearest landmarks, for the online trainers.

#include <cstdint>
#include <vector>

#include "core/knn/nearest_search.h"
#include "core/model/landmark_model.h"
#include "core/train/sampling.h"
#include "core/train/trainer.h"

namespace sepal {

/// Draws points uniformly (with replacement, as the EmbedSOM R package) from all data or from a
/// fixed seeded subsample, and finds each one's nearest landmark through NearestSearch. Points
/// with NaN or infinity are never drawn.
class PointStream {
  public:
    /// sampleSize 0 = all points; otherwise a fixed subsample of that many points.
    PointStream(uint64_t seed, size_t sampleSize)
        : m_rng(seed), m_seed(seed), m_sampleSize(sampleSize) {}
    /// Number of points one epoch visits (the subsample's size, or n).
    size_t epochSize(const TrainingData& data);
    /// Draws `count` points and their nearest landmarks (k = 1) against the current landmarks.
    void draw(const LandmarkModel& model, const TrainingData& data, NearestSearch& search,
              size_t count);
    /// Point i of the last draw (d values).
    const float* point(size_t i) const { return m_points.data() + i * m_d; }
    /// Nearest landmark of point i of the last draw.
    uint32_t winner(size_t i) const { return m_winner[i]; }
    /// Squared distance from point i of the last draw to its nearest landmark.
    float sqdist(size_t i) const { return m_sqdist[i]; }

  private:
    void refreshSample(const TrainingData& data);

    SplitMix m_rng;
    uint64_t m_seed;
    size_t m_sampleSize;
    const float* m_source = nullptr;  // the data the subsample was drawn for
    size_t m_sourceN = 0;
    std::vector<size_t> m_sample;
    size_t m_d = 0;
    std::vector<float> m_points;
    std::vector<uint32_t> m_winner;
    std::vector<float> m_sqdist;
};

}  // namespace sepal
