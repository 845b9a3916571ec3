#include "app/gating.h"

#include <algorithm>
#include <string>

#include "core/common/error.h"
#include "core/pipeline/samples.h"

namespace sepal::app {

std::vector<size_t> Gating::events(size_t total) const {
    std::vector<size_t> out;
    out.reserve(total);
    for (size_t i = 0; i < total; ++i)
        if (contains(i)) out.push_back(i);
    return out;
}

const std::vector<uint8_t>* Gating::cellsOf(const std::string& id) const {
    for (size_t p = 0; p < members.populations.size(); ++p)
        if (members.populations[p].id == id) return &members.inside[p];
    return nullptr;
}

const GateCount* Gating::countOf(const std::string& id) const {
    for (const GateCount& c : counts)
        if (c.id == id) return &c;
    return nullptr;
}

Gating gatingOf(const Dataset& data, GateSelection gates) {
    Gating g;
    g.gates = std::move(gates);
    if (g.gates.empty()) return g;
    g.gates.tree.validate("the gates");
    const size_t n = data.events();
    g.members.populations = g.gates.tree.populations();
    g.members.inside.assign(g.members.populations.size(), std::vector<uint8_t>(n, 0));
    // Sample s is the events of table s.
    for (size_t s = 0; s < data.samples.size() && s < data.tables.size(); ++s) {
        const GateMembership m = evaluateGates(g.gates.tree, data.tables[s]);
        const size_t count =
            std::min(m.inside.empty() ? 0 : m.inside[0].size(), data.samples[s].count);
        for (size_t p = 0; p < m.inside.size(); ++p)
            std::copy_n(m.inside[p].begin(), count,
                        g.members.inside[p].begin() + long(data.samples[s].first));
        for (const std::string& note : m.notes)
            if (std::find(g.members.notes.begin(), g.members.notes.end(), note) ==
                g.members.notes.end())
                g.members.notes.push_back(note);
    }
    // Each sample's counts, and the whole data's as their sums: one pass over the cells.
    const std::vector<std::string> names = data.sampleNames();
    for (size_t s = 0; s < data.samples.size(); ++s)
        g.bySample.push_back(
            {names[s], gateCountsOfEvents(g.gates.tree, g.members, data.samples[s].first,
                                          data.samples[s].count)});
    g.counts = g.bySample.empty() ? gateCounts(g.gates.tree, g.members) : g.bySample.front().counts;
    for (size_t s = 1; s < g.bySample.size(); ++s)
        for (size_t p = 0; p < g.counts.size(); ++p) {
            g.counts[p].events += g.bySample[s].counts[p].events;
            g.counts[p].parentEvents += g.bySample[s].counts[p].parentEvents;
            g.counts[p].allEvents += g.bySample[s].counts[p].allEvents;
        }
    if (const std::vector<uint8_t>* cells = g.cellsOf(g.gates.population)) {
        g.inside = *cells;
        g.kept = size_t(std::count(g.inside.begin(), g.inside.end(), uint8_t(1)));
    }
    return g;
}

Matrix gatedRows(const Matrix& points, const Gating& gating, const Matrix* beside) {
    const size_t e = beside ? beside->cols : 0;
    if (gating.inside.empty() && e == 0) return points;
    if (e > 0 && beside->rows != points.rows)
        throw InputError("the columns beside have " + std::to_string(beside->rows) +
                         " events, the points " + std::to_string(points.rows));
    const auto rows = gating.events(points.rows);
    const size_t d = points.cols;
    Matrix out(rows.size(), d + e);
    for (size_t r = 0; r < rows.size(); ++r) {
        std::copy_n(points.row(rows[r]), d, out.row(r));
        if (e > 0) std::copy_n(beside->row(rows[r]), e, out.row(r) + d);
    }
    return out;
}

}  // namespace sepal::app
