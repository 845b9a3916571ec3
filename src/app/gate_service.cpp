#include "app/gate_service.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/gate/gate_file.h"

namespace sepal::app {

namespace {

std::string nameOf(const GateNode& g) {
    return g.name.empty() ? g.id : g.name;
}

// Every id (gates and quadrants) of the tree.
std::set<std::string> idsOf(const GateTree& tree) {
    std::set<std::string> ids;
    for (const GateNode& g : tree.gates) {
        ids.insert(g.id);
        for (const Quadrant& q : g.quadrants) ids.insert(q.id);
    }
    return ids;
}

// `base`, or "base 2", "base 3"... not in `taken`.
std::string unique(const std::string& base, const std::set<std::string>& taken) {
    std::string name = base;
    for (int i = 2; taken.count(name); ++i) name = base + " " + std::to_string(i);
    return name;
}

// The gate owning id (the gate itself, or the quadrant gate of a quadrant); nullptr when none.
const GateNode* ownerOf(const GateTree& tree, const std::string& id) {
    for (const GateNode& g : tree.gates) {
        if (g.id == id) return &g;
        for (const Quadrant& q : g.quadrants)
            if (q.id == id) return &g;
    }
    return nullptr;
}

}  // namespace

bool GateService::set(GateSelection gates, const std::string& label) {
    return m_document.setGates(std::move(gates), label);
}

bool GateService::change(GateSelection gates, const std::string& label) {
    const std::string before = state().gating.gates.population;
    if (!m_document.setGates(std::move(gates), label)) return false;
    if (m_retrain && state().gating.gates.population != before && state().data.events() > 0 &&
        state().gating.count(state().data.events()) > 0) {
        // The gate and the training on its cells are one undo step.
        m_document.joinNextTraining();
        m_scheduler.runRecipe(true);
    }
    return true;
}

bool GateService::add(GateNode gate) {
    GateSelection next = state().gating.gates;
    const std::set<std::string> ids = idsOf(next.tree);
    gate.id = unique(!gate.id.empty() ? gate.id : !gate.name.empty() ? gate.name : "gate", ids);
    // Names unique beside it: a second "live" under one parent becomes "live 2".
    std::set<std::string> siblings;
    for (const GateNode& g : next.tree.gates)
        if (g.parent == gate.parent) siblings.insert(nameOf(g));
    gate.name = unique(gate.name.empty() ? gate.id : gate.name, siblings);
    for (Quadrant& q : gate.quadrants)
        q.id = unique(gate.id + " " + (q.name.empty() ? q.id : q.name), ids);
    const std::string label = "Gate " + gate.name;
    // A drawn gate's cells are embedded; a quadrant gate's four populations are shown where
    // they are (embedding one of them, say its first, would leave most cells out of sight).
    if (gate.kind != GateNode::Kind::Quadrant) next.population = gate.id;
    next.tree.gates.push_back(std::move(gate));
    try {
        next.tree.validate("the new gate");
    } catch (const InputError& e) {
        log(LogEntry::Error, e.what());
        return false;
    }
    return change(std::move(next), label);
}

bool GateService::remove(const std::string& id) {
    GateSelection next = state().gating.gates;
    const GateNode* gate = ownerOf(next.tree, id);
    if (!gate) return false;
    const std::string label = "Delete gate " + nameOf(*gate), parent = gate->parent;
    // The gate, what lies under it and booleans that refer to any of them.
    std::set<std::string> gone;
    std::function<void(const GateNode&)> drop = [&](const GateNode& g) {
        if (!gone.insert(g.id).second) return;
        for (const Quadrant& q : g.quadrants) gone.insert(q.id);
    };
    drop(*gate);
    for (bool grew = true; grew;) {
        grew = false;
        for (const GateNode& g : next.tree.gates) {
            if (gone.count(g.id)) continue;
            bool refers = gone.count(g.parent) > 0;
            for (const BooleanOperand& o : g.operands) refers = refers || gone.count(o.ref);
            if (refers) {
                drop(g);
                grew = true;
            }
        }
    }
    std::erase_if(next.tree.gates, [&](const GateNode& g) { return gone.count(g.id) > 0; });
    if (gone.count(next.population)) next.population = parent;
    return change(std::move(next), label);
}

bool GateService::rename(const std::string& id, const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos) {
        log(LogEntry::Error,
            "a population's name is not empty and holds no '/' (it separates paths)");
        return false;
    }
    GateSelection next = state().gating.gates;
    for (GateNode& g : next.tree.gates) {
        if (g.id == id) g.name = name;
        for (Quadrant& q : g.quadrants)
            if (q.id == id) q.name = name;
    }
    return set(std::move(next), "Rename " + name);
}

bool GateService::reparent(const std::string& id, const std::string& parent) {
    GateSelection next = state().gating.gates;
    auto it = std::find_if(next.tree.gates.begin(), next.tree.gates.end(),
                           [&](const GateNode& g) { return g.id == id; });
    if (it == next.tree.gates.end() || it->parent == parent) return false;
    it->parent = parent;
    const std::string label = "Move " + nameOf(*it);
    try {
        next.tree.validate("moving the gate");
    } catch (const InputError&) {
        log(LogEntry::Error, "cannot move " + nameOf(*it) + " under its own population");
        return false;
    }
    // The embedded population keeps its id; its cells follow the new parent.
    const std::string before = state().gating.gates.population;
    if (!m_document.setGates(std::move(next), label)) return false;
    if (m_retrain && !before.empty()) {
        m_document.joinNextTraining();
        m_scheduler.runRecipe(true);
    }
    return true;
}

bool GateService::embed(const std::string& id) {
    GateSelection next = state().gating.gates;
    if (next.population == id) return false;
    next.population = id;
    return change(std::move(next), id.empty() ? "Embed all cells" : "Embed " + next.path());
}

bool GateService::open(const std::string& path) {
    GateSelection gates;
    try {
        const std::string first =
            state().data.tables.empty() ? "" : state().data.tables.front().source;
        gates.tree = readGateFile(path, first);
        // The first sample's gates serve every sample: whose they are, when not each one's own.
        std::vector<std::string> sources;
        for (const auto& t : state().data.tables) sources.push_back(t.source);
        for (const std::string& n : workspaceGatesNotes(path, sources)) log(LogEntry::Warning, n);
        try {
            gates = readGateSelection(path, "", first);
        } catch (const InputError&) {
            // A branching tree: every cell stays embedded until the user picks a population.
        }
    } catch (const std::exception& e) {
        log(LogEntry::Error, e.what());
        return false;
    }
    log(LogEntry::Info, "gates of " + path + ": " +
                            std::to_string(gates.tree.populations().size()) + " populations");
    return change(std::move(gates), "Gates of " + path);
}

}  // namespace sepal::app
