#pragma once
// What embed and apply share about gates: --gates, --population and --write-gates, and a table
// cut down to the cells of the embedded population before anything else sees it.

#include <cstddef>
#include <string>
#include <vector>

#include "core/gate/gate_membership.h"
#include "core/gate/gate_selection.h"
#include "core/io/table.h"

namespace CLI {
class App;
}

namespace sepal::cli {

/// The gate options of embed and apply.
struct GateOptions {
    std::string gates;       ///< --gates FILE (Gating-ML, FlowJo workspace, Sepal's JSON)
    std::string population;  ///< --population PATH (or id) of the gates
    std::string writeGates;  ///< --write-gates FILE (.xml Gating-ML, .wsp FlowJo, else JSON)
};

/// Adds --gates, --population and --write-gates to `cmd`; `what` says what the gates choose.
void addGateOptions(CLI::App* cmd, GateOptions& options, const std::string& what);

/// The selection --gates and --population ask for over `base` (a model's own gates): `base`
/// when neither is given. The first of `inputs` picks a FlowJo workspace's sample, whose gates
/// serve every input: a note on stderr says when the workspace has none of its name, or gates
/// of its own for another input.
GateSelection chooseGates(const GateOptions& options, GateSelection base,
                          const std::vector<std::string>& inputs);

/// The selection's tree, or nullptr without gates (for exports that list each population).
inline const GateTree* gateTree(const GateSelection& gates) {
    return gates.empty() ? nullptr : &gates.tree;
}

/// Keeps the table's events in the selection's population (all without gates); returns how
/// many it kept. With `counts`, also every population's counts of the events as they came
/// (gateCounts, in the same pass over the gates). Throws InputError when a gate's channel is
/// missing.
size_t keepGatedCells(io::Table& table, const GateSelection& gates,
                      std::vector<GateCount>* counts = nullptr);

/// Writes --write-gates: the gates, and when `populations` is given (the outputs are FCS files
/// with a population parameter) one gate per population under the embedded one; a FlowJo
/// workspace lists `samples`.
void writeGatesBack(const GateOptions& options, const GateSelection& gates,
                    const std::vector<std::string>& populations,
                    const std::vector<std::string>& samples);

}  // namespace sepal::cli
