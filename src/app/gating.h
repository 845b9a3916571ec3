#pragma once
// The app's gates: core's gates over the open samples, and per cell whether it passed them all.
// Cells outside are not drawn, trained on, counted or exported, as sepal-cli leaves them out.

#include <cstdint>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "core/common/matrix.h"
#include "core/gate/gate.h"

namespace sepal::app {

/// The gates and, per cell, whether it is inside every one of them.
struct Gating {
    std::vector<Gate> gates;      ///< in the order they were drawn
    std::vector<uint8_t> inside;  ///< one per event; empty without gates (every cell is in)
    size_t kept = 0;              ///< events inside (with gates)
    /// Same gates and cells.
    bool operator==(const Gating&) const = default;
    /// How many of `total` events are inside (all without gates); no pass over the cells.
    size_t count(size_t total) const { return inside.empty() ? total : kept; }
    /// True when the event passed every gate.
    bool contains(size_t event) const { return inside.empty() || inside[event] != 0; }
    /// The events inside, in order (every event when there are no gates).
    std::vector<size_t> events(size_t total) const;
};

/// The gating of `data` by `gates`: each sample's table through core's insideGates. Throws
/// InputError naming the gate and the channel a sample lacks.
Gating gatingOf(const Dataset& data, std::vector<Gate> gates);

/// The rows of `points` whose events are inside (all rows without gates).
Matrix gatedRows(const Matrix& points, const Gating& gating);

}  // namespace sepal::app
