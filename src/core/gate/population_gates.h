#pragma once
// Sepal's populations as gates other tools show by name: in an exported FCS file each event's
// population is the number k + 1 of its population in the "population" parameter (0 for
// none), so a range [k + 0.5, k + 1.5) on that parameter holds population k exactly.

#include <string>
#include <vector>

#include "core/gate/gate_selection.h"

namespace sepal {

/// The selection's tree with one range gate per population name on `parameter`, each named as
/// the population and placed under the embedded population (at the root without one).
GateTree withPopulationGates(const GateSelection& selection, const std::string& parameter,
                             const std::vector<std::string>& names);

}  // namespace sepal
