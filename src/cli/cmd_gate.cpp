// sepal-cli gate DATA... --gates FILE [--membership OUT.csv] [--counts OUT.csv]: evaluates a gate
// tree (Gating-ML 2.0, a FlowJo workspace or Sepal's JSON) on data files (samples) and writes,
// per event of one file, whether it is in each population, and each population's counts per
// sample (gate_counts.csv, as the app's Export > Counts writes it).

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/gate/gate_counts_table.h"
#include "core/gate/gate_file.h"
#include "core/gate/gate_membership.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"
#include "core/io/input_guard.h"
#include "core/io/read_any.h"
#include "core/pipeline/samples.h"

namespace sepal::cli {

namespace {

struct GateArgs {
    std::vector<std::string> data;
    std::string gates;
    std::string membership;
    std::string counts;
    std::string out;
    bool quiet = false;
};

void writeMembership(const std::string& path, const GateMembership& m) {
    io::AtomicFile file(path);
    std::string text;
    for (size_t p = 0; p < m.populations.size(); ++p)
        text += (p ? "," : "") + io::csvField(m.populations[p].id);
    text += "\n";
    const size_t events = m.inside.empty() ? 0 : m.inside[0].size();
    for (size_t i = 0; i < events; ++i) {
        for (size_t p = 0; p < m.inside.size(); ++p) {
            if (p) text += ',';
            text += m.inside[p][i] ? '1' : '0';
        }
        text += '\n';
        if (text.size() > (1u << 20)) {
            file.write(text);
            text.clear();
        }
    }
    file.write(text);
    file.commit();
}

void runGate(const GateArgs& a) {
    std::vector<std::string> inputs = a.data;
    inputs.push_back(a.gates);
    for (const auto& [flag, path] :
         {std::pair{"--membership", &a.membership}, {"--counts", &a.counts}, {"--out", &a.out}})
        io::refuseOverwritingInput(*path, inputs, flag);
    io::refuseRepeatedInputs(a.data);
    if (!a.membership.empty() && a.data.size() > 1)
        throw InputError("--membership writes the events of one data file: give one (" +
                         std::to_string(a.data.size()) + " given)");
    // The first file's gates serve every file, as in embed and the app.
    const GateTree tree = readGateFile(a.gates, a.data.front());
    if (tree.empty()) throw InputError(a.gates + " holds no gates");
    // Another file's gates: said even with --quiet.
    for (const std::string& n : workspaceGatesNotes(a.gates, a.data)) note(false, n);
    std::vector<SampleGateCounts> samples;
    const std::vector<std::string> names = sampleNames(a.data);
    for (size_t f = 0; f < a.data.size(); ++f) {
        const std::string& path = a.data[f];
        const io::Table table = io::readTable(path);
        for (const auto& w : table.warnings) note(a.quiet, w);
        const GateMembership membership = evaluateGates(tree, table);
        for (const std::string& n : membership.notes) note(a.quiet, n);
        samples.push_back({names[f], gateCounts(tree, membership)});
        if (!a.membership.empty()) writeMembership(a.membership, membership);
        if (a.quiet) continue;
        const std::string prefix = a.data.size() > 1 ? samples.back().sample + ": " : "";
        for (const GateCount& c : samples.back().counts)
            std::cout << prefix << c.path << ": " << c.events << " events, "
                      << gatePercent(c.percentOfParent()) << "% of parent, "
                      << gatePercent(c.percentOfAll()) << "% of all\n";
    }
    if (!a.counts.empty()) writeGateCounts(a.counts, samples);
    if (!a.out.empty()) writeGateFile(a.out, tree, a.data);
}

void addGate(CLI::App& app) {
    auto args = std::make_shared<GateArgs>();
    CLI::App* cmd = app.add_subcommand(
        "gate", "evaluate gates (Gating-ML 2.0, a FlowJo workspace or Sepal's JSON) on data files");
    cmd->add_option("data", args->data,
                    "FCS or CSV files (several: samples, each counted; the first one's gates "
                    "when a workspace gates files apart)")
        ->required();
    cmd->add_option(
           "--gates", args->gates,
           "gates: Gating-ML 2.0 (.xml), FlowJo workspace (.wsp; the sample with the data's "
           "file name) or Sepal's JSON (a gates file, model or session)")
        ->required();
    cmd->add_option(
        "--membership", args->membership,
        "write a CSV: a column per population (gate or quadrant id), a row per event, 1 "
        "when the event is inside the gate and its parents (one data file)");
    cmd->add_option("--counts", args->counts,
                    "write gate_counts.csv: per sample and population the sample, the "
                    "population's id and path, its events, its parent's, and percent of parent "
                    "and of the sample (as the app's Export > Counts)");
    cmd->add_option(
        "--out", args->out,
        "write the gates again: Gating-ML (.xml), a FlowJo workspace (.wsp) listing the "
        "data file, or Sepal's JSON");
    cmd->add_flag("--quiet,-q", args->quiet, "print nothing but errors");
    cmd->callback([args] { runGate(*args); });
}

CommandRegistration gateCommand{addGate};

}  // namespace

}  // namespace sepal::cli
