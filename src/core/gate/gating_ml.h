#pragma once
// Gating-ML 2.0 (ISAC), read and written through pugixml: gates, their parents, the
// transformations of their dimensions and the spectrum matrices they compensate with.

#include <string>

#include "core/gate/gate_tree.h"

namespace sepal {

/// Parses a Gating-ML 2.0 document; `source` names it in errors. Throws InputError naming the
/// element and what is wrong (an unknown gate or transformation kind, a missing attribute).
GateTree parseGatingMl(const std::string& text, const std::string& source);
/// Reads a Gating-ML 2.0 file. Throws InputError naming the file.
GateTree readGatingMl(const std::string& path);
/// The tree as a Gating-ML 2.0 document; names other than the id travel in custom_info. FlowJo's
/// biex has no Gating-ML form: a rectangle or quadrant on it is written in data units (the same
/// events), any other gate on it throws InputError.
std::string gatingMlText(const GateTree& tree);
/// Writes gatingMlText(tree) atomically. Throws InputError.
void writeGatingMl(const std::string& path, const GateTree& tree);

}  // namespace sepal
