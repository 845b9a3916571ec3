#pragma once
// The polish's data-space neighbours (polish.h): each cell's nearest cells among those whose
// nearest landmark is one of the cell's few nearest landmarks.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/common/matrix.h"

namespace sepal {

/// A missing neighbour's index.
constexpr uint32_t kNoNeighbour = std::numeric_limits<uint32_t>::max();

/// The usable cells listed by their nearest landmark.
struct CellLists {
    std::vector<uint32_t> cells;  ///< landmark 0's cells, then landmark 1's..., ascending in each
    std::vector<size_t> offset;   ///< g + 1: landmark u's cells are [offset[u], offset[u + 1])
    std::vector<uint8_t> usable;  ///< n: 1 for a cell with finite values and position
    size_t longest = 0;           ///< the longest list
};

/// Candidate pairs the CPU's search compares at most (about a minute on two cores).
constexpr double kCpuMostPairs = 2e10;
/// Candidate pairs a device's search compares at most.
constexpr double kDeviceMostPairs = 1e12;

/// Lists the usable cells by their nearest landmark, probe[i * probes] (g landmarks). Throws
/// InputError when the neighbour search would compare more than mostPairs pairs.
CellLists listCellsByLandmark(const std::vector<uint8_t>& usable,
                              const std::vector<uint32_t>& probe, size_t probes, size_t g,
                              double mostPairs = kCpuMostPairs);

/// Each usable cell's k nearest other usable cells (squared distances in single precision,
/// summed column by column without fused multiply-adds; ascending, ties by lower index) among
/// the cells listed under its `probes` nearest landmarks; nbr and sq: n x k, kNoNeighbour and
/// infinity past the found ones. `goOn` (may be empty) is asked on the calling thread first and
/// after every 64 of its cells: false stops the search, which then returns false with the lists
/// incomplete (the app's Cancel, heard within milliseconds where the whole search may take a
/// minute).
[[nodiscard]] bool candidateNeighbours(const Matrix& points, const CellLists& lists,
                                       const std::vector<uint32_t>& probe, size_t probes, size_t k,
                                       std::vector<uint32_t>& nbr, std::vector<float>& sq,
                                       const std::function<bool()>& goOn = {});

/// False forces candidateNeighbours' portable path (for tests: both give the same lists).
void useNeighbourSearchAvx2(bool allowed);

}  // namespace sepal
