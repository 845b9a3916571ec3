#pragma once
// One training step over every point on the GPU, with the points kept on the device between
// steps: Lloyd's k-means and the batch SOM. Plain C++ header (no CUDA headers).
//
// Usage from a trainer (the points stay the same over the run):
//   cuda::TrainingStep gpu(data.points, data.n, data.d);      // uploads once
//   auto r = gpu.stepKmeans(model.high.data(), g);             // one Lloyd iteration
//   copy r.landmarks into the model, except rows the trainer keeps (locked landmarks);
//   r.inertia is the objective of the landmarks before the move.
// Batch SOM: gpu.setNeighbourhood(h, g) whenever the radius changes (h: g x g, h[j g + c] the
// weight of winner c's points for landmark j, computed on the host with the trainer's own
// neighbourhood shape and map distance), then gpu.stepBatchSom(model.high.data(), g) per epoch.
//
// Per step only the g x d landmarks go up and the g x d new landmarks and g weights come back;
// the nearest landmark of every point stays on the device (assignment() copies it). The
// winner is exact: the same landmark as the CPU search, ties to the lower index. Points with
// NaN or infinity in a coordinate (or so far out that every squared distance overflows float)
// are skipped, as the CPU trainers skip non-finite rows: they count in `skipped`, not in the
// sums, and their assignment is kSkippedPoint. Sums are float per block of points and double
// across blocks, so the last bits may differ between runs (not bitwise reproducible).
// Where the landmarks move little from one step to the next (a converging run: the batch SOM at
// its last radius, k-means near its end), a point whose bounds show that its landmark is still
// its nearest keeps it without a search (step_bounds.h: the same winners as a search, ties
// included; lastKeptCells() counts them; SEPAL_TRAIN_BOUNDS=0 searches every point every step).
// The bounds take 12 bytes a point (two bounds and the list of points to search again); where
// they would leave less than 512 MB of the device free, every step searches every point.
// Where the bounds are not tried, a step after the first lists the points by their last landmark
// and computes, for each 128 of them, only the groups of 32 landmarks that could win one
// (nearest_pruning.h: the same winners; 6 bytes a point; SEPAL_TRAIN_PRUNE=0 never).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/train/whole_data_steps.h"

namespace sepal::cuda {

/// Assignment of a point that the step skipped (a coordinate is NaN or infinite).
constexpr uint32_t kSkippedPoint = 0xffffffffu;

/// What a step gives a trainer.
struct StepResult {
    /// g x d: the new landmarks. k-means: the mean of each landmark's points; batch SOM: the
    /// neighbourhood-weighted mean. A landmark with no weight keeps its place.
    std::vector<float> landmarks;
    /// g: k-means: the points nearest to each landmark; batch SOM: the denominator
    /// sum_c h(j, c) count_c.
    std::vector<double> weights;
    /// Sum of squared distances to the nearest landmark (before the move), over the points
    /// added; a distance that is not finite (an overflow) is left out. NaN after a step whose
    /// bounds kept cells, or whose nearest pass left distances to the sums, while
    /// measureInertia(false).
    double inertia = 0;
    size_t skipped = 0;  ///< points left out for non-finite coordinates
};

/// The last step's raw sums over the points nearest to each landmark (before any smoothing).
struct NearestSums {
    std::vector<double> sums;      ///< g x d
    std::vector<uint64_t> counts;  ///< g
};

/// Milliseconds of the last step's device phases, measured with CUDA events.
struct StepTimes {
    /// Nearest landmark of every point (the nearest or k-NN kernel; with the sums when the
    /// nearest kernel adds them in its pass, lastSumMode() "fused"; with the bounds' passes
    /// when they kept cells: the keep-or-list pass, the listed rows' copy, the bounds' store).
    double assignMs = 0;
    /// Of assignMs: the exact scan of the cells the nearest kernel's products left unsettled.
    double exactScanMs = 0;
    /// Of assignMs: the pruned pass's reordering of the rows by their landmarks (every few
    /// pruned steps; 0 in the others).
    double orderMs = 0;
    double accumulateMs = 0;  ///< per-landmark sums, counts and inertia (0 when fused)
    double smoothMs = 0;      ///< batch-SOM smoothing (if any) and the division
};

/// Points resident on the device, and the buffers of a step, kept from one step to the next.
class TrainingStep {
  public:
    /// points: n x d row-major on the host (may be null when n = 0); uploaded once. `knn` picks
    /// the nearest-landmark kernel: "auto" (the fastest that takes the shape: "nearest" where it
    /// can), or "nearest", "resident", "parts", "tensor", "fused", "bitonic" (a step throws when
    /// that one refuses the shape).
    TrainingStep(const float* points, size_t n, size_t d, const std::string& knn = "auto");
    /// The cells of `cells` (every row, or the rows listed), kept on the device as above. Where
    /// `deviceRows` is not null it holds the same n rows on this device, each padded with zeros
    /// to paddedDim(d) floats (a projector's resident cells): the cells are copied (or gathered)
    /// there instead of uploaded from the host, which at 10^8 cells takes seconds.
    TrainingStep(const TrainingCells& cells, const float* deviceRows,
                 const std::string& knn = "auto");
    ~TrainingStep();
    TrainingStep(const TrainingStep&) = delete;
    TrainingStep& operator=(const TrainingStep&) = delete;

    /// Number of points.
    size_t count() const;
    /// Dimensions d.
    size_t dim() const;

    /// One Lloyd iteration over every point: landmarks (g x d host, finite, g < 65536) to the
    /// means of their nearest points.
    StepResult stepKmeans(const float* landmarks, size_t g);
    /// Sets the batch SOM's neighbourhood: weights g x g (host), row j the weight of each
    /// winner's points for landmark j; weights <= 0 leave a winner out. g^2 floats on the device
    /// (4 MB at g = 1024; the trainers' maps stay far below the 65535 landmarks allowed).
    void setNeighbourhood(const float* weights, size_t g);
    /// One batch-SOM epoch over every point with the neighbourhood set for the same g.
    StepResult stepBatchSom(const float* landmarks, size_t g);

    /// Whether the steps measure the distances of the cells their bounds kept, and of those
    /// whose nearest the products settled alone, for the inertia (on by default). Off, the sums
    /// pass reads no landmark rows (about 0.9 ms less a kept step at 10^8 x 32 on an H200) and
    /// such a step reports a NaN inertia: for callers, as the trainers, that read only the
    /// landmarks.
    void measureInertia(bool on);

    /// The last step's nearest landmark of every point (n values; kSkippedPoint when skipped;
    /// empty before the first step).
    std::vector<uint32_t> assignment() const;
    /// The last step's per-landmark sums and counts (empty before the first step).
    NearestSums nearestSums() const;
    /// The last step's device phases.
    StepTimes lastTimes() const;
    /// The k-NN kernel that served the last step ("nearest", "resident", "parts", ...).
    std::string lastKernel() const;
    /// How the last step summed: in the nearest kernel's pass ("fused"), or in a pass of its own
    /// with the points grouped by landmark ("sorted"), in shared memory ("shared") or in global
    /// memory ("global").
    std::string lastSumMode() const;
    /// Points of the last step whose nearest landmark the nearest kernel's products did not
    /// settle, so that landmarks were scanned exactly for them: those of the unsettled groups,
    /// or all of them (0 for the other kernels).
    size_t lastExactScans() const;
    /// Points of the last step whose nearest landmark the nearest kernel's products settled with
    /// one candidate, which it took without measuring its distance (0 for the other kernels,
    /// the sums in the pass and SEPAL_NEAREST_WINNER_DISTANCES=1).
    size_t lastLoneCells() const;
    /// Cells of the last step whose bounds kept their landmark without a search (0 for a step
    /// whose landmarks moved too far, or g changed, and for kernels other than "nearest").
    size_t lastKeptCells() const;
    /// The share of the nearest pass's products the last step computed: below 1 where its
    /// tiles skipped the groups of landmarks that could not win their cells (nearest_pruning.h;
    /// the same winners), 1 for a step that searched every landmark.
    double lastPrunedShare() const;
    /// Device memory this object holds, in bytes.
    size_t deviceBytes() const;

    struct State;

  private:
    StepResult step(const float* landmarks, size_t g, bool smooth);

    std::unique_ptr<State> m_state;
};

/// A Gaussian neighbourhood for setNeighbourhood: h[j g + c] = exp(-|p_j - p_c|^2 / (2 sigma^2))
/// for 2D positions p (g x 2, host); sigma > 0.
std::vector<float> gaussianNeighbourhood(const float* positions, size_t g, float sigma);

}  // namespace sepal::cuda
