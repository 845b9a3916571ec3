#pragma once
// Landmarks (or a block of reference points) laid out for the blocked kernels, and those
// kernels: distances (difference form) and the k-NN graph's dot-product keys.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// Points handled together by one kernel call: each landmark value loaded serves all of them.
constexpr size_t kPointGroup = 4;
/// Landmark columns are padded to a multiple of this (two 512-bit vectors).
constexpr size_t kLandmarkBlock = 32;

/// g landmarks of d dimensions transposed to d x gp (gp = g rounded up to kLandmarkBlock), so
/// that one vector load brings one dimension of many landmarks; padding columns are zero.
struct LandmarkTiles {
    size_t g = 0;               ///< landmarks
    size_t gp = 0;              ///< padded landmark count (row stride of `values`)
    size_t d = 0;               ///< dimensions
    std::vector<float> values;  ///< d x gp, values[t * gp + j] = landmark j, dimension t

    /// Fills the tiles from landmarks: g x d row-major.
    void build(const float* landmarks, size_t g, size_t d);
};

/// Squared distances (difference form, summed over dimensions in order) of kPointGroup points
/// to every landmark: points[p] is point p (d values); dist: kPointGroup x tiles.gp. A point's
/// values do not depend on the other points of its group.
void groupDistances(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                    float* dist);

/// The k-NN graph's candidate keys in the dot-product form, |y|^2 - 2 x.y (|x|^2 left out: the
/// same for every reference of a point), of kPointGroup points against every column of `tiles`:
/// norms[j] is the squared norm of column j (tiles.gp values), keys: kPointGroup x tiles.gp.
/// One fused multiply-add a term where the difference form needs three; the error grows with
/// the norms instead of the distances, which knn_candidates.cpp bounds, on data centred first.
void groupDotKeys(const float* const points[kPointGroup], const LandmarkTiles& tiles,
                  const float* norms, float* keys);

/// The k smallest of dist[0..g), ascending, ties by lower index (NaN counts as +infinity):
/// writes k indices and distances. Needs k <= g.
void selectNearest(const float* dist, size_t g, size_t k, uint32_t* idx, float* sqdist);

/// Implementations of selectNearest, which runs the fastest this CPU has; all give the same.
enum class SelectKernel {
    Insertion,  ///< a sorted buffer, one distance at a time
    Avx2,       ///< a bound from eight lanes, then the few candidates at or below it
    Avx512,     ///< the same with sixteen lanes and compressed candidates
};

/// True when this CPU runs `kernel`.
bool selectKernelAvailable(SelectKernel kernel);

/// selectNearest by a named kernel (for tests).
void selectNearestWith(SelectKernel kernel, const float* dist, size_t g, size_t k, uint32_t* idx,
                       float* sqdist);

}  // namespace sepal
