#pragma once
// The 2D neighbourhood a SOM trains on: distances between landmarks' 2D positions.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/landmark_model.h"

namespace sepal {

/// How SOM neighbourhoods measure distance between landmarks on the map.
enum class TopologyMetric {
    Chebyshev,  ///< max(|dx|, |dy|): square neighbourhoods on a grid, as the EmbedSOM R package
    Euclidean,  ///< for free 2D layouts (a map the user drew or dragged)
};

/// Distance between the 2D positions of landmarks a and b.
inline float mapDistance(const LandmarkModel& m, size_t a, size_t b, TopologyMetric metric) {
    const float dx = m.low[2 * a] - m.low[2 * b];
    const float dy = m.low[2 * a + 1] - m.low[2 * b + 1];
    if (metric == TopologyMetric::Chebyshev) return std::max(std::abs(dx), std::abs(dy));
    return std::sqrt(dx * dx + dy * dy);
}

/// The q-quantile (0..1) of the distances between all pairs of distinct landmarks (with the
/// zero self-distances included, as the R package computes it from the full distance matrix).
float mapDistanceQuantile(const LandmarkModel& m, TopologyMetric metric, double q);

/// The median distance from a landmark to its nearest other landmark in 2D (1 on a unit grid).
float medianMapSpacing(const LandmarkModel& m);

/// Per winner, all landmarks sorted by map distance, so that an update visits only the landmarks
/// inside its reach; rebuilt when the map (lowVersion) changes. Holds g x g entries, so it stays
/// empty (unavailable) above 2048 landmarks, where callers scan all landmarks instead.
class SortedMapNeighbours {
  public:
    /// Rebuilds the lists when the model's map changed since the last call.
    void update(const LandmarkModel& model, TopologyMetric metric);
    /// False when the lists are not kept (too many landmarks).
    bool available() const { return !m_idx.empty(); }
    /// The g landmarks nearest first on the map from winner c.
    const uint32_t* indices(size_t c) const { return m_idx.data() + c * m_g; }
    /// Their map distances from c, ascending.
    const float* distances(size_t c) const { return m_dist.data() + c * m_g; }

  private:
    uint64_t m_version = ~uint64_t{0};
    TopologyMetric m_metric = TopologyMetric::Chebyshev;
    size_t m_g = 0;
    std::vector<uint32_t> m_idx;
    std::vector<float> m_dist;
};

/// Parses "grid"/"square"/"chebyshev" or "free"/"euclidean"; throws InputError otherwise.
TopologyMetric parseTopologyMetric(const std::string& name);

}  // namespace sepal
