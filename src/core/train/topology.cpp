#include "core/train/topology.h"

#include <algorithm>
#include <random>

#include "core/common/error.h"
#include "core/train/sampling.h"

namespace sepal {

float mapDistanceQuantile(const LandmarkModel& m, TopologyMetric metric, double q) {
    const size_t g = m.count();
    if (g == 0) return 0.0f;
    std::vector<float> d;
    // Up to 2048 landmarks use the full matrix; beyond, a fixed-seed sample keeps memory small.
    constexpr size_t kFullLimit = 2048;
    if (g <= kFullLimit) {
        d.reserve(g * g);
        for (size_t a = 0; a < g; ++a)
            for (size_t b = 0; b < g; ++b) d.push_back(mapDistance(m, a, b, metric));
    } else {
        std::mt19937_64 rng(12345);
        std::uniform_int_distribution<size_t> pick(0, g - 1);
        d.reserve(kFullLimit * kFullLimit);
        for (size_t s = 0; s < kFullLimit * kFullLimit; ++s)
            d.push_back(mapDistance(m, pick(rng), pick(rng), metric));
    }
    // Linear interpolation between order statistics (R's default quantile type 7).
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(d.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    std::nth_element(d.begin(), d.begin() + lo, d.end());
    const float a = d[lo];
    if (lo + 1 >= d.size()) return a;
    const float b = *std::min_element(d.begin() + lo + 1, d.end());
    return a + static_cast<float>(pos - static_cast<double>(lo)) * (b - a);
}

float medianMapSpacing(const LandmarkModel& m) {
    const size_t g = m.count();
    if (g < 2) return 1.0f;
    std::vector<float> nearest(g);
    for (size_t a = 0; a < g; ++a) {
        float best = -1.0f;
        for (size_t b = 0; b < g; ++b) {
            if (a == b) continue;
            const float dist = mapDistance(m, a, b, TopologyMetric::Euclidean);
            if (dist > 0.0f && (best < 0.0f || dist < best)) best = dist;
        }
        nearest[a] = best < 0.0f ? 1.0f : best;
    }
    std::nth_element(nearest.begin(), nearest.begin() + g / 2, nearest.end());
    return nearest[g / 2];
}

void SortedMapNeighbours::update(const LandmarkModel& model, TopologyMetric metric) {
    const size_t g = model.count();
    if (m_version == model.lowVersion && m_metric == metric && m_g == g) return;
    m_version = model.lowVersion;
    m_metric = metric;
    m_g = g;
    constexpr size_t kListLimit = 2048;  // g^2 entries of 8 bytes: at most 32 MiB
    if (g > kListLimit) {
        m_idx.clear();
        m_dist.clear();
        return;
    }
    m_idx.resize(g * g);
    m_dist.resize(g * g);
#pragma omp parallel if (g >= kParallelLandmarks)
    {
        std::vector<std::pair<float, uint32_t>> row(g);
#pragma omp for schedule(static)
        for (long long cc = 0; cc < static_cast<long long>(g); ++cc) {
            const size_t c = static_cast<size_t>(cc);
            for (size_t j = 0; j < g; ++j)
                row[j] = {mapDistance(model, c, j, metric), static_cast<uint32_t>(j)};
            std::sort(row.begin(), row.end());
            for (size_t j = 0; j < g; ++j) {
                m_dist[c * g + j] = row[j].first;
                m_idx[c * g + j] = row[j].second;
            }
        }
    }
}

TopologyMetric parseTopologyMetric(const std::string& name) {
    if (name == "grid" || name == "square" || name == "chebyshev") return TopologyMetric::Chebyshev;
    if (name == "free" || name == "euclidean") return TopologyMetric::Euclidean;
    throw InputError(
        "unknown SOM topology \"" + name +
        "\": use \"grid\" (square neighbourhoods) or \"free\" (the current 2D layout)");
}

}  // namespace sepal
