#pragma once
// Which events of a table are in each population of a gate tree, exactly as Gating-ML 2.0
// says: a rectangle's min is inside and its max outside, polygons by the even-odd rule (so a
// self-crossing polygon has holes), an ellipsoid's boundary inside, quadrants cut at [value,
// next value), and an event whose value in a gate's dimension is NaN outside that gate.

#include <cstdint>
#include <string>
#include <vector>

#include "core/gate/gate_tree.h"
#include "core/io/table.h"

namespace sepal {

/// Per population of a tree, per event: 1 when inside the gate and all its parents.
struct GateMembership {
    std::vector<GatePopulation> populations;   ///< as GateTree::populations() lists them
    std::vector<std::vector<uint8_t>> inside;  ///< one per population, one byte per event
    std::vector<std::string> notes;  ///< what a user should know (a compensation the file lacks)
    /// The events of the population `id`; throws InputError when the tree has no such id.
    const std::vector<uint8_t>& of(const std::string& id) const;
    /// How many events the population `id` holds.
    size_t count(const std::string& id) const;
};

/// One population's events beside its parent's and the whole data's.
struct GateCount {
    std::string id;                  ///< the gate's or quadrant's id
    std::string path;                ///< "Cells/Singlets/Live"
    size_t events = 0;               ///< events inside
    size_t parentEvents = 0;         ///< events of its parent population (all events at the root)
    size_t allEvents = 0;            ///< events of the data
    double percentOfParent() const;  ///< 100 * events / parentEvents (0 for an empty parent)
    double percentOfAll() const;     ///< 100 * events / allEvents (0 without events)
};

/// The counts of every population of `membership` (evaluated on `tree`).
std::vector<GateCount> gateCounts(const GateTree& tree, const GateMembership& membership);

/// The counts of the events [first, first + count) of `membership`: one sample of several
/// whose events follow each other (its allEvents: the sample's).
std::vector<GateCount> gateCountsOfEvents(const GateTree& tree, const GateMembership& membership,
                                          size_t first, size_t count);

/// Evaluates every population of `tree` on `table`. Throws InputError naming the gate and the
/// channel when the table lacks one.
GateMembership evaluateGates(const GateTree& tree, const io::Table& table);

/// The events of one population (an id or a path; all events for an empty string).
std::vector<uint8_t> populationEvents(const GateTree& tree, const io::Table& table,
                                      const std::string& idOrPath);

/// The values of one gate dimension for every event of `table`: compensated, then scaled.
/// Throws InputError naming `where` and the missing channel.
std::vector<double> dimensionValues(const GateTree& tree, const io::Table& table,
                                    const GateDimension& dimension, const std::string& where);

/// True when (x, y) lies inside the polygon of x y pairs by the even-odd rule; NaN is outside.
bool insideGatePolygon(const std::vector<double>& vertices, double x, double y);

}  // namespace sepal
