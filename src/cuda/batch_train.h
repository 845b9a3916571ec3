#pragma once
// GPU batch steps for the trainers: nearest-landmark assignment with per-landmark sums (k-means)
// and the neighbourhood-weighted sums of batch SOM. Plain C++ header (no CUDA headers).
//
// Usage from a trainer: keep a DevicePoints for the training data, then per step
//   auto km = cuda::kmeansAssignAccumulate(points, model.high.data(), g);
//   new landmark j = km.sums[j*d .. j*d+d) / km.counts[j]   (when counts[j] > 0)
//   auto som = cuda::batchSomStep(points, model.high.data(), grid.data(), g, sigma);
//   new landmark j = som.numerators[j*d ..) / som.denominators[j]
// Sums use float atomics, so the last bits may differ between runs (not bitwise reproducible).
// Each call allocates its buffers and copies the n winners back: a trainer over every point on
// the GPU wants cuda/training_step.h (points resident, shared-memory sums); these stay as the
// baseline of sepal-bench cuda-train.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sepal::cuda {

/// Training points kept on the device (n x d, uploaded once).
class DevicePoints {
  public:
    /// points: n x d row-major on the host.
    DevicePoints(const float* points, size_t n, size_t d);
    ~DevicePoints();
    DevicePoints(const DevicePoints&) = delete;
    DevicePoints& operator=(const DevicePoints&) = delete;
    /// Number of points.
    size_t count() const;
    /// Dimensions d.
    size_t dim() const;

    struct State;
    /// Implementation detail for the CUDA side.
    State& state() const { return *m_state; }

  private:
    std::unique_ptr<State> m_state;
};

/// One k-means assignment: nearest landmark of every point and per-landmark sums.
struct KmeansSums {
    std::vector<float> sums;           ///< g x d: sum of the points assigned to each landmark
    std::vector<float> counts;         ///< g: points assigned to each landmark
    std::vector<uint32_t> assignment;  ///< n: nearest landmark (ties: lower index)
    double inertia = 0;                ///< sum of squared distances to the nearest landmark
};

/// Assigns every point to its nearest landmark (landmarks: g x d host) and sums per landmark.
KmeansSums kmeansAssignAccumulate(const DevicePoints& points, const float* landmarks, size_t g);

/// One batch-SOM step's sums: numerators_j = sum_x h(j, bmu(x)) x, denominators_j =
/// sum_x h(j, bmu(x)), h(j, b) = exp(-|grid_j - grid_b|^2 / (2 sigma^2)).
struct SomSums {
    std::vector<float> numerators;    ///< g x d
    std::vector<float> denominators;  ///< g
};

/// Batch SOM sums for landmarks (g x d host) with 2D grid positions (g x 2 host); sigma > 0.
SomSums batchSomStep(const DevicePoints& points, const float* landmarks, const float* grid,
                     size_t g, float sigma);

}  // namespace sepal::cuda
