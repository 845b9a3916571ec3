#pragma once
// The ranks' targets on the device (split_ranks.h's RankTargets, uploaded once), as both rank
// kernels read them: the split products' kernel for rows of up to 64 columns and the wide one.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/split_ranks.h"

namespace sepal::cuda {

/// The targets of slots s0 .. s0 + count - 1, on the device.
struct RankSlots {
    const uint32_t* cells;
    const double* key;
    const uint32_t* id;
    const float* below;
    const float* above;
    int count;
};

/// A RankTargets on the device, with zeroed counts (slots x width) for the kernels to add to.
class DeviceRankTargets {
  public:
    /// Uploads `targets` and zeroes the counts.
    explicit DeviceRankTargets(const RankTargets& targets)
        : m_width(size_t(targets.width)), m_slots(targets.cells.size()) {
        uploadVector(m_cells, targets.cells);
        uploadVector(m_key, targets.key);
        uploadVector(m_id, targets.id);
        uploadVector(m_below, targets.below);
        uploadVector(m_above, targets.above);
        m_counts.reserve(std::max<size_t>(m_slots * m_width, 1));
        SEPAL_CUDA_CHECK(cudaMemset(m_counts.get(), 0, m_slots * m_width * sizeof(uint32_t)));
    }
    /// Slots s0 .. s1 - 1.
    RankSlots slots(size_t s0, size_t s1) const {
        return {m_cells.get() + s0,           m_key.get() + s0 * m_width,
                m_id.get() + s0 * m_width,    m_below.get() + s0 * m_width,
                m_above.get() + s0 * m_width, int(s1 - s0)};
    }
    /// The counts of slot s0 on.
    uint32_t* counts(size_t s0) const { return m_counts.get() + s0 * m_width; }
    /// Every slot's counts, copied to the host.
    std::vector<uint32_t> download() const {
        std::vector<uint32_t> counts(m_slots * m_width);
        SEPAL_CUDA_CHECK(cudaMemcpy(counts.data(), m_counts.get(), counts.size() * sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost));
        return counts;
    }

  private:
    size_t m_width, m_slots;
    DeviceBuffer<uint32_t> m_cells, m_id, m_counts;
    DeviceBuffer<double> m_key;
    DeviceBuffer<float> m_below, m_above;
};

}  // namespace sepal::cuda
