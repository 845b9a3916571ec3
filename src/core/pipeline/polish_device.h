#pragma once
// The UMAP-like polish's heavy phases on a device (the CUDA backend has one): the cells'
// data-space neighbours among their landmarks' cells, their graph and the epochs. A device gives
// what the CPU's code gives, bit for bit, so the polished picture does not depend on the
// backend (but for the device's double exp against the C library's, which may differ in a last
// bit; no case was seen).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/pipeline/polish.h"
#include "core/pipeline/polish_epoch.h"
#include "core/pipeline/polish_neighbours.h"

namespace sepal {

/// Runs the polish's neighbour search and epochs somewhere other than the CPU.
class PolishDevice {
  public:
    virtual ~PolishDevice() = default;
    /// "cuda".
    virtual std::string name() const = 0;
    /// Neighbours at most this many per cell (more are found on the CPU).
    virtual size_t mostNeighbours() const = 0;
    /// True when the device has the memory for a polish of n cells of d values with k
    /// neighbours among `probes` landmarks' cells now (else the CPU polishes).
    virtual bool fits(size_t n, size_t d, size_t k, size_t probes) const = 0;
    /// As candidateNeighbours (polish_neighbours.h), the same lists bit for bit.
    virtual void neighbours(const Matrix& points, const CellLists& lists,
                            const std::vector<uint32_t>& probe, size_t probes, size_t k,
                            std::vector<uint32_t>& nbr, std::vector<float>& sq) = 0;
    /// The whole UMAP-like polish after the cells are listed: the neighbours (as
    /// candidateNeighbours), their graph (as polishGraph) and rates.size() epochs on y
    /// (polishStride(n) x 2), epoch e as polishEpoch(graph, usable padded to the stride, keep,
    /// y, next, step with epoch e and rate rates[e]) on the CPU's vector path gives it.
    /// onProgress (may be empty) hears 0 once the graph is made and the share done after each
    /// epoch; false stops, leaving y unchanged, and the call returns false. times (may be
    /// null) gets the phases' seconds.
    virtual bool polish(const Matrix& points, const CellLists& lists,
                        const std::vector<uint32_t>& probe, size_t probes, size_t k,
                        const std::vector<uint32_t>& keep, std::vector<float>& y, PolishStep step,
                        const std::vector<float>& rates,
                        const std::function<bool(double)>& onProgress, PolishTimes* times) = 0;
};

}  // namespace sepal
