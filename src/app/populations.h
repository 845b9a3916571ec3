#pragma once
// Population arithmetic on plain values: which cells a lasso takes, removing a group, sizes.
// The document wraps these in undoable commands.

#include <cstdint>
#include <string>
#include <vector>

#include "app/colouring.h"

namespace sepal::app {

/// Populations the app holds at most (a cell's membership is one byte).
inline constexpr size_t kMostPopulations = 250;

/// Sets membership[i] = code for every cell whose 2D position (xy, n x 2) lies inside the
/// polygon (world units, x y pairs); returns how many cells it set.
size_t paintPolygon(const std::vector<float>& polygon, const std::vector<float>& xy, uint8_t code,
                    std::vector<uint8_t>& membership);
/// The populations without group i (its cells become unassigned, later codes move down).
Populations withoutGroup(const Populations& populations, size_t i);
/// The populations with group `from` merged into group `into` (its cells join `into`, then it
/// is removed); unchanged when either index is out of range or they are equal.
Populations mergedGroups(const Populations& populations, size_t from, size_t into);
/// Cells in each group.
std::vector<size_t> groupSizes(const Populations& populations);
/// Populations named `names` (palette colours) with each cell in group codes[i] (-1: none).
Populations populationsFromCodes(const std::vector<std::string>& names,
                                 const std::vector<int32_t>& codes);

}  // namespace sepal::app
