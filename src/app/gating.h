#pragma once
// The app's gates: core's gate tree over the open samples, each population's cells, and the
// population embedded. Cells outside it are not drawn, trained on, counted or exported, as
// sepal-cli leaves them out.

#include <cstdint>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "core/common/matrix.h"
#include "core/gate/gate_counts_table.h"
#include "core/gate/gate_membership.h"
#include "core/gate/gate_selection.h"

namespace sepal::app {

/// The gates, every population's cells over all samples, and the embedded population's.
struct Gating {
    GateSelection gates;            ///< the tree and the embedded population
    GateMembership members;         ///< per population of the tree, per event of all samples
    std::vector<GateCount> counts;  ///< per population: events, parent's, all
    /// Per sample (named as populations.csv names it) and population: gate_counts.csv's rows,
    /// as sepal-cli gate counts the samples' files.
    std::vector<SampleGateCounts> bySample;
    std::vector<uint8_t> inside;  ///< the embedded population; empty: every cell is in
    size_t kept = 0;              ///< events inside (with a population)
    /// Same gates and cells.
    bool operator==(const Gating& o) const { return gates == o.gates && inside == o.inside; }
    /// How many of `total` events are inside (all without gates); no pass over the cells.
    size_t count(size_t total) const { return inside.empty() ? total : kept; }
    /// True when the event is in the embedded population.
    bool contains(size_t event) const { return inside.empty() || inside[event] != 0; }
    /// The events inside, in order (every event when there are no gates).
    std::vector<size_t> events(size_t total) const;
    /// The cells of population `id` (nullptr for "" or an id the tree lacks: every cell).
    const std::vector<uint8_t>* cellsOf(const std::string& id) const;
    /// The counts of population `id`, or nullptr.
    const GateCount* countOf(const std::string& id) const;
};

/// The gating of `data` by `gates`: each sample's table through core's evaluateGates. Throws
/// InputError naming the gate and the channel a sample lacks.
Gating gatingOf(const Dataset& data, GateSelection gates);

/// The rows of `points` whose events are inside (all rows without gates), each followed by its
/// row of `beside` when given (the same events; the state markers beside the embedded ones).
Matrix gatedRows(const Matrix& points, const Gating& gating, const Matrix* beside = nullptr);

}  // namespace sepal::app
