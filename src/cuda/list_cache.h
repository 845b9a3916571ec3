#pragma once
// DeviceListCache: the resident cells' nearest landmarks kept on the device. A cell's position
// depends on its topnn nearest landmarks in data space (which only training changes) and on the
// 2D positions of its topn nearest (which a drag or a layout changes): while the data-space
// landmarks and k stay, a change of 2D positions re-projects from the kept lists only the cells
// that list a moved landmark, found through an index landmark -> cells (NeighbourCache is the
// CPU's counterpart). Used by CudaProjector's resident path; not thread-safe.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/device_buffer.h"

namespace sepal::cuda {

/// The cells a change touches: all of them, or `count` cells listed at `rows` (device memory).
struct DueCells {
    bool all = false;                ///< every cell is due (rows unused)
    const uint32_t* rows = nullptr;  ///< count cell indices on the device (may repeat a cell)
    size_t count = 0;                ///< cells listed at rows (0 and !all: nothing changed)
};

/// Lists, index and flags of the resident cells on one device.
class DeviceListCache {
  public:
    /// Sets the most device bytes the cache may take: 0 turns it off; SIZE_MAX (the default)
    /// takes what the device has free, less a reserve for drawing.
    void setLimit(size_t bytes);
    /// Forgets the lists (the points changed; their memory too when the count did); n cells to
    /// come.
    void reset(size_t n);
    /// Device bytes the lists, index and flags of n cells take with topn/topnn of g landmarks.
    static size_t bytesFor(size_t n, int topn, int topnn, size_t g);

    /// True when the lists hold these data-space landmarks (g x d, row-major) and this k.
    bool holds(const std::vector<float>& high, size_t g, size_t d, int topn, int topnn) const;
    /// Makes room for lists of the n cells; false, with refusal() set, when they would exceed
    /// the limit or the device's free memory (then every change re-projects every cell).
    bool reserve(size_t g, int topn, int topnn);
    /// Where the k-NN writes the lists (n x topnn), queues cells with NaN or infinity, counts
    /// them ([0]; [1] is the fallback count), and where the projection flags fallbacks.
    uint32_t* idx() const { return m_idx.get(); }
    float* dist() const { return m_dist.get(); }
    uint32_t* nonFinite() const { return m_nonFinite.get(); }
    unsigned long long* counters() const { return m_counters.get(); }
    uint8_t* fellBack() const { return m_fellBack.get(); }
    /// The lists were just written for these landmarks and k: records them as the key (the index
    /// is built when a change first asks for it). Clears the placed model.
    void adopt(const std::vector<float>& high, size_t g, size_t d, int topn, int topnn);

    /// The cells due from the model last placed to 2D positions `low` (g x 2) with these
    /// parameters: all when nothing was placed yet, smooth or adjust changed, or the moved
    /// landmarks' cells are more than half of all; else the cells listing a moved landmark.
    /// Launches on `stream` (the index is built on the first call after adopt()).
    DueCells due(const std::vector<float>& low, float smooth, float adjust, cudaStream_t stream);
    /// Records the model whose positions the cells now hold.
    void placed(const std::vector<float>& low, float smooth, float adjust);
    /// Forgets the placed model (positions were written by another path).
    void unsettle() { m_placed = false; }

    /// Device bytes held now.
    size_t bytes() const { return m_bytes; }
    /// Why no lists are kept ("" while they are, or before the first projection).
    const std::string& refusal() const { return m_refusal; }
    /// Records why the projector did not use the cache this time.
    void decline(const std::string& why) { m_refusal = why; }

  private:
    void buildIndex(cudaStream_t stream);
    /// Frees the per-cell buffers (the lists, index, queue and flags).
    void releaseLists();

    size_t m_limit = SIZE_MAX, m_n = 0, m_bytes = 0;
    std::string m_refusal;
    // Key: the lists were found for these landmarks and k.
    bool m_valid = false;
    std::vector<float> m_high;
    size_t m_g = 0, m_d = 0;
    int m_topn = 0, m_topnn = 0;
    DeviceBuffer<uint32_t> m_idx, m_nonFinite;
    DeviceBuffer<float> m_dist;
    DeviceBuffer<unsigned long long> m_counters;
    DeviceBuffer<uint8_t> m_fellBack;
    // The index: landmark j's cells are m_rows[m_offsets[j], m_offsets[j + 1]).
    bool m_indexed = false;
    std::vector<unsigned long long> m_offsets;
    DeviceBuffer<unsigned long long> m_cursor;
    DeviceBuffer<uint32_t> m_counts, m_rows, m_due;
    // The due cells' segments, uploaded for the gather (kept until the next call).
    std::vector<unsigned long long> m_segments;
    DeviceBuffer<unsigned long long> m_segmentsDev;
    // The model whose positions the cells hold.
    bool m_placed = false;
    std::vector<float> m_low;
    float m_smooth = 0, m_adjust = 0;
};

}  // namespace sepal::cuda
