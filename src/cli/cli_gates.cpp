#include "cli/cli_gates.h"

#include <CLI/CLI.hpp>

#include "cli/cli_progress.h"
#include "core/common/error.h"
#include "core/gate/gate_file.h"
#include "core/gate/population_gates.h"

namespace sepal::cli {

void addGateOptions(CLI::App* cmd, GateOptions& o, const std::string& what) {
    cmd->add_option("--gates", o.gates,
                    "gates: Gating-ML 2.0 (.xml), a FlowJo workspace (.wsp; the sample with the "
                    "input's file name) or Sepal's JSON (Export > Gates, a model or session); " +
                        what);
    cmd->add_option("--population", o.population,
                    "the population of the gates to keep, by path (\"Cells/Singlets/Live\") or id; "
                    "needed when the gates branch");
    cmd->add_option("--write-gates", o.writeGates,
                    "write the gates back: Gating-ML (.xml), a FlowJo workspace (.wsp) listing the "
                    "outputs, or Sepal's JSON; with FCS outputs and populations, each population "
                    "is a named gate on the population parameter under the gates");
}

GateSelection chooseGates(const GateOptions& o, GateSelection base,
                          const std::vector<std::string>& inputs) {
    if (!o.gates.empty()) {
        GateSelection chosen =
            readGateSelection(o.gates, o.population, inputs.empty() ? "" : inputs.front());
        // Another file's gates: said even with --quiet.
        for (const std::string& n : workspaceGatesNotes(o.gates, inputs)) note(false, n);
        return chosen;
    }
    if (!o.population.empty()) {
        if (base.empty())
            throw InputError("--population " + o.population +
                             ": there are no gates (give --gates FILE)");
        base.population = base.tree.population(o.population).id;
    }
    return base;
}

size_t keepGatedCells(io::Table& table, const GateSelection& gates,
                      std::vector<GateCount>* counts) {
    if (counts && !gates.empty()) {
        // Every population in one pass; the embedded one's cells come from the same pass.
        const GateMembership members = evaluateGates(gates.tree, table);
        *counts = gateCounts(gates.tree, members);
        if (!gates.population.empty())
            table = io::keepRows(table, members.of(gates.tree.population(gates.population).id));
        return table.events();
    }
    if (gates.population.empty()) return table.events();
    table = io::keepRows(table, gates.inside(table));
    return table.events();
}

void writeGatesBack(const GateOptions& o, const GateSelection& gates,
                    const std::vector<std::string>& populations,
                    const std::vector<std::string>& samples) {
    if (o.writeGates.empty()) return;
    const GateTree tree =
        populations.empty() ? gates.tree : withPopulationGates(gates, "population", populations);
    if (tree.empty())
        throw InputError("--write-gates " + o.writeGates +
                         ": there are no gates and no populations to write");
    writeGateFile(o.writeGates, tree, samples);
}

}  // namespace sepal::cli
