#pragma once
// The training step's nearest pass limited, tile by tile, to the landmarks that could win it.
// The landmarks are grouped 32 nearby ones a group (core/knn/landmark_groups.h), one group a step
// of the nearest kernel's products, and handed to it in that order (slots); the cells are kept
// in the order of the slot of their landmark at some recent step (the training step reorders its
// copy of them every few steps), so that a warpgroup's 128 consecutive cells lie together.
// A cell x whose last landmark w now lies r = |x - L_w| away has its nearest within r; a landmark
// of group q (centre c_q, radius R_q) lies at least |x - c_q| - R_q away, so where that exceeds r
// (with margins far above the float sums' errors) no landmark of q can win x or tie with its
// winner. Each tile's steps are those some cell of it cannot rule out; the kernel computes only
// those, and the winners are the same as a search of every landmark (ties to the lower index of
// the landmarks' own order: NearestArgs::slotLandmark). The tile pass first tests each run of 32
// cells as one ball (around its first cell, of the largest sum of a cell's r and its distance
// from the first), then cell by cell only the groups the ball kept.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/device_buffer.h"
#include "cuda/nearest_landmark.h"

namespace sepal::cuda {

/// Landmarks a group: one step of the nearest kernel's products.
constexpr size_t kPruningGroup = 32;

/// The state of the pruned passes, kept from one step to the next (the grouping, the buffers).
/// A step prepares the landmarks, then (every few steps) puts its cells in the order listBySlot
/// gives, so that 128 consecutive cells lie together, then marks each tile's steps.
class NearestPruning {
  public:
    /// Whether a pass over g landmarks of this stride can be pruned (one part of the nearest
    /// kernel, nearestPrunes, and at least two groups).
    static bool applies(size_t g, int stride);

    /// Groups `high` (g x d on the host: the landmarks of `args`, whose d, stride, landmarks and
    /// g are set) and puts them on the device in slot order, with each group's centre and radius;
    /// sets args.prep and args.slotLandmark. False, with args untouched, where g or the stride
    /// do not apply.
    bool prepareLandmarks(NearestArgs& args, const float* high, cudaStream_t stream);
    /// Lists the n cells (`cells`, n on the device) by the slot of their landmark of the last
    /// step (`assign`, any value where there was none: those go last), after prepareLandmarks.
    /// False where its buffers do not fit (cells untouched).
    bool listBySlot(const uint32_t* assign, size_t n, uint32_t* cells, cudaStream_t stream);
    /// Marks, for each 128 consecutive cells of `args` (points, n, assign: each cell's landmark
    /// of the last step, any value), the steps of 32 slots that may hold one's nearest landmark,
    /// after prepareLandmarks; sets args.tileSteps. False where its buffer does not fit.
    bool markTiles(NearestArgs& args, cudaStream_t stream);
    /// The share of the steps of 32 landmarks the last marked pass computes (waits for it).
    double lastShare() const;
    /// Device memory held, in bytes.
    size_t deviceBytes() const;

  private:
    /// Groups the g landmarks `high` (g x d) afresh.
    void regroup(const float* high, size_t g, size_t d);
    /// The landmarks `high` in slot order (g x d), each group's centre (groups x stride) and
    /// radius (rounded up) under the current grouping; returns the mean radius.
    double measureGroups(const float* high, size_t d, int stride, std::vector<float>& slotHigh,
                         std::vector<float>& centres, std::vector<float>& radii) const;

    size_t m_g = 0;
    int m_stride = 0;
    int m_sinceGrouped = 0;                // prepared passes since the landmarks were grouped
    double m_groupedSpread = 0;            // the groups' mean radius when they were made
    std::vector<uint32_t> m_slotLandmark;  // g: the landmark in each slot
    std::vector<uint32_t> m_landmarkSlot;  // g: each landmark's slot
    size_t m_tiles = 0, m_steps = 0;       // of the last marked pass
    NearestLandmarkBuffers m_prepared;
    DeviceBuffer<uint32_t> m_slotLandmarkDev, m_landmarkSlotDev, m_tileSteps;
    DeviceBuffer<uint16_t> m_keys;
    DeviceBuffer<unsigned long long> m_counts;  // g + 1 buckets, then the steps marked
    DeviceBuffer<float> m_rows, m_centres, m_radii;
};

/// out[i] = values[cells[i]], or cells[i] itself where values is null (device pointers).
void launchGatherListed(const uint32_t* values, const uint32_t* cells, size_t n, uint32_t* out,
                        cudaStream_t stream);

}  // namespace sepal::cuda
