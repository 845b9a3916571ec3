#include <algorithm>
#include <vector>

#include "core/knn/landmark_tiles.h"
#include "core/knn/lloyd_assigner.h"
#include "core/knn/nearest_blocks.h"
#include "core/knn/nearest_search.h"

namespace sepal {

namespace {

// Blocked search: groups of points against transposed landmarks, then a top-k per point.
// Groups start at fixed multiples of kPointGroup, so the thread count changes nothing.
class CpuNearestSearch final : public NearestSearch {
  public:
    void search(const float* points, size_t n, const float* landmarks, size_t g, size_t d, size_t k,
                uint32_t* idx, float* sqdist) override {
        if (n == 0 || k == 0) return;
        if (n < kFewPoints) return searchFew(points, n, landmarks, g, d, k, idx, sqdist);
        m_tiles.build(landmarks, g, d);
        const LandmarkTiles& tiles = m_tiles;
        const long long groups = static_cast<long long>((n + kPointGroup - 1) / kPointGroup);
#pragma omp parallel if (n >= 256)
        {
            std::vector<float> dist(kPointGroup * tiles.gp);
#pragma omp for schedule(static)
            for (long long grp = 0; grp < groups; ++grp) {
                const size_t first = static_cast<size_t>(grp) * kPointGroup;
                const size_t count = std::min(kPointGroup, n - first);
                const float* rows[kPointGroup];
                // A short last group repeats its last point; the copies are not used.
                for (size_t p = 0; p < kPointGroup; ++p)
                    rows[p] = points + (first + std::min(p, count - 1)) * d;
                if (k == 1) {
                    // The trainers' winners: the kernel keeps the smallest as it goes.
                    uint32_t at[kPointGroup];
                    float sq[kPointGroup];
                    groupNearest(rows, tiles, at, sq);
                    std::copy(at, at + count, idx + first);
                    std::copy(sq, sq + count, sqdist + first);
                    continue;
                }
                groupDistances(rows, tiles, dist.data());
                for (size_t p = 0; p < count; ++p)
                    selectNearest(dist.data() + p * tiles.gp, g, k, idx + (first + p) * k,
                                  sqdist + (first + p) * k);
            }
        }
    }

    std::unique_ptr<LloydAssigner> lloydAssigner(const float* points, size_t n, size_t d) override {
        // Without AVX-512 the AVX2 distance kernel over every landmark beats the portable
        // block kernel over the quarter of them that the bounds leave.
        if (!fastBlockKernel()) return nullptr;
        return std::make_unique<LloydAssigner>(points, n, d);
    }

  private:
    // Below this many points, transposing the landmarks costs more than it saves (the online
    // trainers ask for one point at a time).
    static constexpr size_t kFewPoints = 8;

    void searchFew(const float* points, size_t n, const float* landmarks, size_t g, size_t d,
                   size_t k, uint32_t* idx, float* sqdist) {
        m_dist.resize(g);
        for (size_t p = 0; p < n; ++p) {
            const float* x = points + p * d;
            for (size_t j = 0; j < g; ++j) {
                const float* l = landmarks + j * d;
                float a = 0.0f;
                for (size_t t = 0; t < d; ++t) {
                    const float e = x[t] - l[t];
                    a += e * e;
                }
                m_dist[j] = a;
            }
            selectNearest(m_dist.data(), g, k, idx + p * k, sqdist + p * k);
        }
    }

    LandmarkTiles m_tiles;
    std::vector<float> m_dist;
};

}  // namespace

std::unique_ptr<NearestSearch> makeCpuNearestSearch() {
    return std::make_unique<CpuNearestSearch>();
}

}  // namespace sepal
