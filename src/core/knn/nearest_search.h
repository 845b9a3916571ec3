#pragma once
// Nearest-landmark search: the k-NN that EmbedSOM and every trainer share (CPU or GPU).

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sepal {

class LloydAssigner;  // core/knn/lloyd_assigner.h: what callers of lloydAssigner include

/// Finds, for each point, its k nearest landmarks (squared Euclidean, difference form).
class NearestSearch {
  public:
    virtual ~NearestSearch() = default;
    /// points: n x d; landmarks: g x d; k <= g. Writes idx and sqdist, each n x k, per point
    /// sorted by ascending distance with ties broken by the lower landmark index.
    virtual void search(const float* points, size_t n, const float* landmarks, size_t g, size_t d,
                        size_t k, uint32_t* idx, float* sqdist) = 0;
    /// Lloyd's assignments of one set of points (n x d, alive and unchanged while it is used)
    /// over iterations, where this search has a faster way than a fresh search each time; null
    /// where it has none.
    virtual std::unique_ptr<LloydAssigner> lloydAssigner(const float* points, size_t n, size_t d);
};

/// The CPU search on all cores (OpenMP); results do not depend on the thread count.
std::unique_ptr<NearestSearch> makeCpuNearestSearch();

}  // namespace sepal
