#include "cuda/list_cache.h"

#include <algorithm>
#include <cstring>

#include "core/common/bytes.h"
#include "cuda/list_index.h"

namespace sepal::cuda {

namespace {
/// Device memory left free beside the cache (the window's buffers, the k-NN's work space).
constexpr size_t kReserveBytes = size_t(512) << 20;

}  // namespace

void DeviceListCache::setLimit(size_t bytes) {
    m_limit = bytes;
    if (bytes == 0) reset(m_n);
}

void DeviceListCache::reset(size_t n) {
    // Other points: their lists are sized anew, and the memory may be wanted for the points.
    if (n != m_n) releaseLists();
    m_n = n;
    m_valid = m_indexed = m_placed = false;
}

size_t DeviceListCache::bytesFor(size_t n, int topn, int topnn, size_t g) {
    const size_t perCell = size_t(topnn) * 8 + size_t(topn) * 4 + 4 + 1 + 2;  // lists, index,
    return n * perCell + g * 20 + 64;  // queue, flags, half a cell of due rows; per landmark
}

bool DeviceListCache::holds(const std::vector<float>& high, size_t g, size_t d, int topn,
                            int topnn) const {
    return m_valid && m_g == g && m_d == d && m_topn == topn && m_topnn == topnn &&
           m_high.size() == high.size() &&
           std::memcmp(m_high.data(), high.data(), high.size() * sizeof(float)) == 0;
}

bool DeviceListCache::reserve(size_t g, int topn, int topnn) {
    m_valid = m_indexed = m_placed = false;
    const size_t need = bytesFor(m_n, topn, topnn, g);
    if (m_limit == 0) {
        m_refusal =
            "the neighbour cache is off (SEPAL_NEIGHBOUR_CACHE_MB=0): every change "
            "re-projects every cell";
        return false;
    }
    size_t freeBytes = 0, total = 0;
    SEPAL_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    const size_t available =
        freeBytes + m_bytes > kReserveBytes ? freeBytes + m_bytes - kReserveBytes : 0;
    if (need > m_limit || need > available) {
        m_refusal =
            "the neighbour lists of " + std::to_string(m_n) + " cells would take " +
            gigabytes(need) + " of device memory (" +
            (need > m_limit ? "limit " + gigabytes(m_limit) : gigabytes(available) + " free") +
            "): every change re-projects every cell";
        return false;
    }
    try {
        const size_t listed = m_n * size_t(topnn);
        m_idx.reserve(std::max<size_t>(listed, 1));
        m_dist.reserve(std::max<size_t>(listed, 1));
        m_nonFinite.reserve(std::max<size_t>(m_n, 1));
        m_fellBack.reserve(std::max<size_t>(m_n, 1));
        m_rows.reserve(std::max<size_t>(m_n * size_t(topn), 1));
        m_due.reserve(m_n / 2 + 1);
        m_counters.reserve(2);
        m_counts.reserve(g);
        m_cursor.reserve(g);
        m_segmentsDev.reserve(2 * g + 1);
    } catch (const CudaError& e) {
        // Another allocation took the memory between the question and the answer.
        cudaGetLastError();
        releaseLists();
        m_refusal = std::string("no device memory for the neighbour lists (") + e.what() +
                    "): every change re-projects every cell";
        return false;
    }
    m_bytes = (m_idx.capacity() + m_nonFinite.capacity() + m_rows.capacity() + m_due.capacity() +
               m_counts.capacity()) *
                  4 +
              m_dist.capacity() * 4 + m_fellBack.capacity() +
              (m_counters.capacity() + m_cursor.capacity() + m_segmentsDev.capacity()) * 8;
    m_refusal.clear();
    return true;
}

void DeviceListCache::releaseLists() {
    for (auto* b : {&m_idx, &m_nonFinite, &m_rows, &m_due, &m_counts}) b->release();
    m_dist.release();
    m_fellBack.release();
    m_bytes = 0;
}

void DeviceListCache::adopt(const std::vector<float>& high, size_t g, size_t d, int topn,
                            int topnn) {
    m_high = high;
    m_g = g;
    m_d = d;
    m_topn = topn;
    m_topnn = topnn;
    m_valid = true;
    m_indexed = m_placed = false;
}

void DeviceListCache::buildIndex(cudaStream_t stream) {
    ListView lists{m_idx.get(), m_dist.get(), m_n, m_topnn, m_topn};
    SEPAL_CUDA_CHECK(cudaMemsetAsync(m_counts.get(), 0, m_g * sizeof(uint32_t), stream));
    launchCountListed(lists, int(m_g), m_counts.get(), stream);
    std::vector<uint32_t> counts(m_g);
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(counts.data(), m_counts.get(), m_g * sizeof(uint32_t),
                                     cudaMemcpyDeviceToHost, stream));
    SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
    m_offsets.assign(m_g + 1, 0);
    for (size_t j = 0; j < m_g; ++j) m_offsets[j + 1] = m_offsets[j] + counts[j];
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_cursor.get(), m_offsets.data(),
                                     m_g * sizeof(unsigned long long), cudaMemcpyHostToDevice,
                                     stream));
    launchFillIndex(lists, int(m_g), m_cursor.get(), m_rows.get(), stream);
    m_indexed = true;
}

DueCells DeviceListCache::due(const std::vector<float>& low, float smooth, float adjust,
                              cudaStream_t stream) {
    DueCells all;
    all.all = true;
    if (!m_placed || smooth != m_smooth || adjust != m_adjust || low.size() != m_low.size() ||
        low.size() != 2 * m_g)
        return all;
    std::vector<size_t> moved;
    for (size_t j = 0; j < m_g; ++j)
        if (std::memcmp(&low[2 * j], &m_low[2 * j], 2 * sizeof(float)) != 0) moved.push_back(j);
    if (moved.empty()) return {};
    if (!m_indexed) buildIndex(stream);
    size_t total = 0;
    for (size_t j : moved) total += m_offsets[j + 1] - m_offsets[j];
    if (total * 2 > m_n) return all;
    // Segment s: its first entry in the index, then (after every start) its place in the output.
    const size_t segments = moved.size();
    m_segments.assign(2 * segments + 1, 0);
    for (size_t s = 0; s < segments; ++s) {
        m_segments[s] = m_offsets[moved[s]];
        m_segments[segments + s + 1] =
            m_segments[segments + s] + m_offsets[moved[s] + 1] - m_offsets[moved[s]];
    }
    SEPAL_CUDA_CHECK(cudaMemcpyAsync(m_segmentsDev.get(), m_segments.data(),
                                     m_segments.size() * sizeof(unsigned long long),
                                     cudaMemcpyHostToDevice, stream));
    launchGatherRows(m_rows.get(), m_segmentsDev.get(), m_segmentsDev.get() + segments,
                     int(segments), total, m_due.get(), stream);
    DueCells d;
    d.rows = m_due.get();
    d.count = total;
    return d;
}

void DeviceListCache::placed(const std::vector<float>& low, float smooth, float adjust) {
    m_low = low;
    m_smooth = smooth;
    m_adjust = adjust;
    m_placed = true;
    m_refusal.clear();
}

}  // namespace sepal::cuda
