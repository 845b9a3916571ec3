#include "core/gate/gate_selection.h"

#include <cstdio>
#include <fstream>
#include <map>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/gate/gate_file.h"
#include "core/gate/gate_membership.h"
#include "core/gate/gate_tree_json.h"
#include "core/io/atomic_file.h"

namespace sepal {

std::vector<uint8_t> GateSelection::inside(const io::Table& table) const {
    if (population.empty()) return std::vector<uint8_t>(table.events(), 1);
    return populationEvents(tree, table, population);
}

std::string GateSelection::path() const {
    if (population.empty()) return "";
    return tree.population(population).path;
}

std::string defaultPopulation(const GateTree& tree, const std::string& source) {
    if (tree.empty()) return "";
    const std::vector<GatePopulation> populations = tree.populations();
    // One chain: every population but one is the parent of exactly one other.
    std::map<std::string, int> children;
    for (const GateNode& g : tree.gates) children[g.parent] += 1;
    bool chain = children[""] == 1;
    for (const GatePopulation& p : populations) chain = chain && children[p.id] <= 1;
    for (const GatePopulation& p : populations)
        if (chain && children[p.id] == 0 && p.quadrant < 0 &&
            tree.gates[p.gate].kind != GateNode::Kind::Quadrant)
            return p.id;
    std::string list;
    for (const GatePopulation& p : populations) list += (list.empty() ? "" : ", ") + p.path;
    throw InputError(source + " holds " + std::to_string(populations.size()) +
                     " populations: choose the one to embed with --population PATH (" + list + ")");
}

GateSelection readGateSelection(const std::string& path, const std::string& population,
                                const std::string& dataPath) {
    GateSelection out;
    out.tree = readGateFile(path, dataPath);
    if (!population.empty()) {
        out.population = out.tree.population(population).id;
        return out;
    }
    // A model's or session's own choice, when the file is Sepal's JSON with one.
    try {
        nlohmann::json doc;
        std::ifstream in(path);
        doc = nlohmann::json::parse(in);
        if (doc.is_object() && doc.contains("gates")) {
            GateSelection own =
                gateSelectionFromJson(doc["gates"].is_object() ? doc["gates"] : doc, path);
            if (!own.population.empty()) return own;
        }
    } catch (const nlohmann::json::exception&) {
        // Not JSON (Gating-ML or a workspace): no population of its own.
    }
    out.population = defaultPopulation(out.tree, path);
    return out;
}

void writeGateSelection(const std::string& path, const GateSelection& selection,
                        const std::vector<std::string>& samples) {
    // Gating-ML and FlowJo have no embedded population: the tree alone.
    if (const std::string ext = lowerExtension(path); ext == ".xml" || ext == ".wsp")
        return writeGateFile(path, selection.tree, samples);
    selection.tree.validate("the gates to save");
    nlohmann::json doc = gateSelectionToJson(selection);
    doc["format"] = "sepal-gates";
    io::AtomicFile file(path);
    file.write(doc.dump(1) + "\n");
    file.commit();
}

nlohmann::json gateSelectionToJson(const GateSelection& s) {
    nlohmann::json j = gateTreeToJson(s.tree);
    j["population"] = s.population;
    return j;
}

GateSelection gateSelectionFromJson(const nlohmann::json& j, const std::string& source) {
    GateSelection s;
    s.tree = gateTreeFromJson(j, source);
    if (j.is_object() && j.contains("population") && j["population"].is_string()) {
        s.population = j["population"].get<std::string>();
        if (!s.population.empty()) s.population = s.tree.population(s.population).id;
    } else if (!s.tree.empty()) {
        // Earlier flat gates: all of them, the last of the chain.
        s.population = defaultPopulation(s.tree, source);
    }
    return s;
}

std::string gatedSummary(size_t kept, size_t events, const GateSelection& selection) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%",
                  events == 0 ? 0.0 : 100.0 * double(kept) / double(events));
    return std::to_string(kept) + " of " + std::to_string(events) + " events (" + share +
           ") are in " + (selection.population.empty() ? "no gate" : selection.path());
}

}  // namespace sepal
