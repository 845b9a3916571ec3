#pragma once
// The gates of an analysis and the one population of them that is embedded: what models,
// sessions, the app and sepal-cli's embed and apply carry, so that all of them keep the same
// cells.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/gate/gate_tree.h"
#include "core/io/table.h"

namespace sepal {

/// A gate tree and which of its populations is embedded.
struct GateSelection {
    GateTree tree;           ///< every gate, as drawn or read
    std::string population;  ///< id of the embedded population; empty: every event
    /// True without gates.
    bool empty() const { return tree.empty(); }
    /// Per event of `table`: 1 when it is in the population (every event without one). Throws
    /// InputError naming the gate and the channel the table lacks.
    std::vector<uint8_t> inside(const io::Table& table) const;
    /// The population's path ("" for every event).
    std::string path() const;
    /// Same gates and population.
    bool operator==(const GateSelection&) const = default;
};

/// The population a tree embeds when none is named: the last gate of a tree that is one chain
/// (as gates drawn one inside the other are); "" without gates. Throws InputError listing the
/// populations when the tree branches, so that the user names one (--population PATH).
std::string defaultPopulation(const GateTree& tree, const std::string& source);

/// Reads the gates of `path` (Gating-ML, FlowJo workspace, Sepal's JSON) and chooses the
/// population: `population` (an id or path) when given, else the file's own (a model's or
/// session's), else defaultPopulation. `dataPath` picks a workspace's sample.
GateSelection readGateSelection(const std::string& path, const std::string& population,
                                const std::string& dataPath = "");

/// Writes the gates to `path` atomically, in the format its extension names (writeGateFile);
/// Sepal's JSON keeps the embedded population too.
void writeGateSelection(const std::string& path, const GateSelection& selection,
                        const std::vector<std::string>& samples = {});

/// The selection as JSON: the tree's fields and "population".
nlohmann::json gateSelectionToJson(const GateSelection& selection);
/// Reads a selection from JSON: this format, or earlier flat polygon gates (a chain whose
/// last gate is the population). Throws InputError naming `source` and the field.
GateSelection gateSelectionFromJson(const nlohmann::json& json, const std::string& source);

/// "12345 of 20000 events (61.7%) are in Cells/Live": what is said after gating.
std::string gatedSummary(size_t inside, size_t events, const GateSelection& selection);

}  // namespace sepal
