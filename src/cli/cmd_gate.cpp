// sepal-cli gate DATA --gates FILE [--membership OUT.csv] [--counts OUT.csv]: evaluates a gate
// tree (Gating-ML 2.0, a FlowJo workspace or Sepal's JSON) on a data file and writes, per
// event, whether it is in each population, and each population's counts.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/gate/gate_file.h"
#include "core/gate/gate_membership.h"
#include "core/io/atomic_file.h"
#include "core/io/input_guard.h"
#include "core/io/read_any.h"

namespace sepal::cli {

namespace {

struct GateArgs {
    std::string data;
    std::string gates;
    std::string membership;
    std::string counts;
    std::string out;
    bool quiet = false;
};

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void writeMembership(const std::string& path, const GateMembership& m) {
    io::AtomicFile file(path);
    std::string text;
    for (size_t p = 0; p < m.populations.size(); ++p)
        text += (p ? "," : "") + csvField(m.populations[p].id);
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

std::string percent(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", v);
    return text;
}

void writeCounts(const std::string& path, const std::vector<GateCount>& counts) {
    std::string text = "gate,path,events,parent_events,percent_of_parent,percent_of_all\n";
    for (const GateCount& c : counts)
        text += csvField(c.id) + "," + csvField(c.path) + "," + std::to_string(c.events) + "," +
                std::to_string(c.parentEvents) + "," + percent(c.percentOfParent()) + "," +
                percent(c.percentOfAll()) + "\n";
    io::AtomicFile file(path);
    file.write(text);
    file.commit();
}

void runGate(const GateArgs& a) {
    const std::vector<std::string> inputs = {a.data, a.gates};
    for (const auto& [flag, path] :
         {std::pair{"--membership", &a.membership}, {"--counts", &a.counts}, {"--out", &a.out}})
        io::refuseOverwritingInput(*path, inputs, flag);
    const GateTree tree = readGateFile(a.gates, a.data);
    if (tree.empty()) throw InputError(a.gates + " holds no gates");
    // Another file's gates: said even with --quiet.
    for (const std::string& n : workspaceGatesNotes(a.gates, {a.data})) note(false, n);
    const io::Table table = io::readTable(a.data);
    for (const auto& w : table.warnings) note(a.quiet, w);
    const GateMembership membership = evaluateGates(tree, table);
    for (const std::string& n : membership.notes) note(a.quiet, n);
    const std::vector<GateCount> counts = gateCounts(tree, membership);
    if (!a.membership.empty()) writeMembership(a.membership, membership);
    if (!a.counts.empty()) writeCounts(a.counts, counts);
    if (!a.out.empty()) writeGateFile(a.out, tree, {a.data});
    if (!a.quiet)
        for (const GateCount& c : counts)
            std::cout << c.path << ": " << c.events << " events, " << percent(c.percentOfParent())
                      << "% of parent, " << percent(c.percentOfAll()) << "% of all\n";
}

void addGate(CLI::App& app) {
    auto args = std::make_shared<GateArgs>();
    CLI::App* cmd = app.add_subcommand(
        "gate",
        "evaluate gates (Gating-ML 2.0, a FlowJo workspace or Sepal's JSON) on a data file");
    cmd->add_option("data", args->data, "FCS or CSV file")->required();
    cmd->add_option(
           "--gates", args->gates,
           "gates: Gating-ML 2.0 (.xml), FlowJo workspace (.wsp; the sample with the data's "
           "file name) or Sepal's JSON (a gates file, model or session)")
        ->required();
    cmd->add_option(
        "--membership", args->membership,
        "write a CSV: a column per population (gate or quadrant id), a row per event, 1 "
        "when the event is inside the gate and its parents");
    cmd->add_option("--counts", args->counts,
                    "write a CSV: per population its id, path, events, parent's events and percent "
                    "of parent and of all");
    cmd->add_option(
        "--out", args->out,
        "write the gates again: Gating-ML (.xml), a FlowJo workspace (.wsp) listing the "
        "data file, or Sepal's JSON");
    cmd->add_flag("--quiet", args->quiet, "print nothing but errors");
    cmd->callback([args] { runGate(*args); });
}

CommandRegistration gateCommand{addGate};

}  // namespace

}  // namespace sepal::cli
