#pragma once
// Edits a user makes to landmarks (add by duplicating, remove, lock); the GUI and trainers share
// the meaning of the lock bits defined here.

#include <cstddef>
#include <cstdint>

#include "core/model/landmark_model.h"

namespace sepal {

/// Lock bit: the 2D position is pinned (a dragged landmark); layouts leave it in place.
inline constexpr uint8_t kLockLow = 1;
/// Lock bit: the data-space position is pinned; SOM and k-means leave it in place.
inline constexpr uint8_t kLockHigh = 2;
/// Both positions pinned.
inline constexpr uint8_t kLockBoth = kLockLow | kLockHigh;

/// True when landmark i may not move in 2D.
inline bool lowLocked(const LandmarkModel& m, size_t i) {
    return (m.locked[i] & kLockLow) != 0;
}
/// True when landmark i may not move in data space.
inline bool highLocked(const LandmarkModel& m, size_t i) {
    return (m.locked[i] & kLockHigh) != 0;
}

/// Adds a copy of landmark i offset by `offset` (relative to the typical spacing in each space)
/// so trainers can pull it apart from its origin; returns the new index. Throws on a bad index.
size_t duplicateLandmark(LandmarkModel& model, size_t i, float offset = 0.05f, uint64_t seed = 1);
/// Sets landmark i's lock bits (kLockLow, kLockHigh, both, or 0 to unlock); bumps no versions.
void setLocked(LandmarkModel& model, size_t i, uint8_t flags);

}  // namespace sepal
