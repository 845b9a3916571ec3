#include "core/train/landmark_graph.h"

#include <algorithm>
#include <numeric>

#include "core/train/sampling.h"

namespace sepal {

std::vector<uint32_t> landmarkNeighbours(const LandmarkModel& model, size_t k,
                                         std::vector<float>* sqdist) {
    const size_t g = model.count(), d = model.dim;
    k = g > 0 ? std::min(k, g - 1) : 0;
    std::vector<uint32_t> idx(g * k);
    if (sqdist) sqdist->assign(g * k, 0.0f);
#pragma omp parallel if (g >= kParallelLandmarks)
    {
        std::vector<float> dist(g);
        std::vector<uint32_t> order(g);
#pragma omp for schedule(static)
        for (long long ii = 0; ii < static_cast<long long>(g); ++ii) {
            const size_t i = static_cast<size_t>(ii);
            const float* a = model.highRow(i);
            for (size_t j = 0; j < g; ++j) {
                const float* b = model.highRow(j);
                float s = 0.0f;
                for (size_t t = 0; t < d; ++t) {
                    const float diff = a[t] - b[t];
                    s += diff * diff;
                }
                dist[j] = s;
            }
            std::iota(order.begin(), order.end(), 0u);
            std::swap(order[i], order[g - 1]);  // exclude i itself
            std::partial_sort(order.begin(), order.begin() + k, order.end() - 1,
                              [&](uint32_t x, uint32_t y) {
                                  return dist[x] < dist[y] || (dist[x] == dist[y] && x < y);
                              });
            for (size_t r = 0; r < k; ++r) {
                idx[i * k + r] = order[r];
                if (sqdist) (*sqdist)[i * k + r] = dist[order[r]];
            }
        }
    }
    return idx;
}

void buildLandmarkGraph(LandmarkModel& model, size_t k) {
    const size_t g = model.count();
    const std::vector<uint32_t> nn = landmarkNeighbours(model, k);
    const size_t kk = g > 0 ? nn.size() / g : 0;
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    edges.reserve(nn.size());
    for (size_t i = 0; i < g; ++i)
        for (size_t r = 0; r < kk; ++r) {
            const uint32_t a = static_cast<uint32_t>(i), b = nn[i * kk + r];
            edges.emplace_back(std::min(a, b), std::max(a, b));
        }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    model.edges = std::move(edges);
    ++model.lowVersion;
}

}  // namespace sepal
