#pragma once
// The gate tree in Sepal's own JSON (gates files, models, sessions), and the flat polygon gates
// of earlier versions read as a chain of polygon gates (each the parent of the next), which
// keeps the same cells.

#include <nlohmann/json.hpp>
#include <string>

#include "core/gate/gate_tree.h"

namespace sepal {

/// The tree as JSON: {"matrices": [...], "gates": [...]} (docs/FORMATS.md).
nlohmann::json gateTreeToJson(const GateTree& tree);
/// Reads a tree from JSON: this format, or an array of earlier flat polygon gates. Throws
/// InputError naming `source` and the field.
GateTree gateTreeFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace sepal
