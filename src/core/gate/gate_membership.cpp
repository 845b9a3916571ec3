#include "core/gate/gate_membership.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/common/error.h"
#include "core/transform/channel_label.h"
#include "core/transform/compensation.h"

namespace sepal {

namespace {

// A channel's column in the table; throws naming the gate.
size_t column(const io::Table& table, const std::string& name, const std::string& where) {
    const int c = table.findChannel(name);
    if (c < 0)
        throw InputError(where + ": " + (table.source.empty() ? "the data" : table.source) +
                         " has no channel \"" + name + "\"");
    return size_t(c);
}

// A label column the reader made of a code parameter (an exported "population"): its values as
// the file stores them, the label's number from 1 (0 for none).
const io::LabelColumn* labelColumn(const io::Table& table, const std::string& name) {
    for (const io::LabelColumn& l : table.labels)
        if (l.name == name && l.codes.size() == table.events()) return &l;
    return nullptr;
}

// Raw (uncompensated) values of one channel, as FCS scale values: Time in seconds.
std::vector<double> rawValues(const io::Table& table, size_t c) {
    std::vector<double> out(table.events());
    const double timestep = table.channels[c].timestep;
    for (size_t i = 0; i < out.size(); ++i) out[i] = double(table.values.at(i, c)) * timestep;
    return out;
}

// Compensated values of `name` under the file's spillover: observed * inverse(spillover) for a
// spillover channel, the raw values for any other channel or a file without spillover.
std::vector<double> fileCompensated(const io::Table& table, const std::string& name,
                                    const std::string& where) {
    // FlowJo's export of compensated values ("Comp-PE-A") without PE-A: compensated already.
    if (table.findChannel(name) < 0)
        if (const int c = compensatedColumn(table, name); c >= 0)
            return rawValues(table, size_t(c));
    const size_t c = column(table, name, where);
    // A file without a spillover matrix has nothing to undo: its values are the compensated
    // ones (the compliance suite's truths read it so).
    if (!table.spillover) return rawValues(table, c);
    const ResolvedCompensation comp = resolveCompensation(*table.spillover, table);
    size_t k = comp.columns.size();
    for (size_t j = 0; j < comp.columns.size(); ++j)
        if (comp.columns[j] == c) k = j;
    if (k == comp.columns.size()) return rawValues(table, c);
    const size_t n = comp.columns.size();
    std::vector<double> out(table.events());
#pragma omp parallel for schedule(static) if (out.size() > 65536)
    for (size_t i = 0; i < out.size(); ++i) {
        double v = 0;
        for (size_t j = 0; j < n; ++j)
            v += double(table.values.at(i, comp.columns[j])) * comp.inverse[j * n + k];
        out[i] = v;
    }
    return out;
}

// Fluorochrome `name` unmixed from the detectors of a spectrum matrix: the least-squares f of
// f S = d (f = d S^-1 for a square S), or d times the coefficients when they are inverted already.
std::vector<double> matrixCompensated(const io::Table& table, const SpectrumMatrix& m,
                                      const std::string& name, const std::string& where) {
    size_t f = m.fluorochromes.size();
    for (size_t i = 0; i < m.fluorochromes.size(); ++i)
        if (m.fluorochromes[i] == name) f = i;
    if (f == m.fluorochromes.size()) {
        // A detector (or any other channel) under the matrix is read as it is.
        return rawValues(table, column(table, name, where));
    }
    const size_t nf = m.fluorochromes.size(), nd = m.detectors.size();
    std::vector<size_t> cols;
    for (const std::string& d : m.detectors) cols.push_back(column(table, d, where));
    // weights[j]: the contribution of detector j to fluorochrome f.
    std::vector<double> weights(nd, 0.0);
    if (m.invertedAlready) {
        for (size_t j = 0; j < nd; ++j) weights[j] = m.coefficients[f * nd + j];
    } else {
        // (S S^T)^-1 S, row f: the pseudo-inverse's column f read along the detectors.
        std::vector<double> sst(nf * nf, 0.0);
        for (size_t a = 0; a < nf; ++a)
            for (size_t b = 0; b < nf; ++b)
                for (size_t j = 0; j < nd; ++j)
                    sst[a * nf + b] += m.coefficients[a * nd + j] * m.coefficients[b * nd + j];
        const std::vector<double> inv =
            invertMatrix(sst, nf, where + ": spectrum matrix \"" + m.id + "\"");
        for (size_t j = 0; j < nd; ++j)
            for (size_t a = 0; a < nf; ++a)
                weights[j] += m.coefficients[a * nd + j] * inv[a * nf + f];
    }
    std::vector<double> out(table.events());
#pragma omp parallel for schedule(static) if (out.size() > 65536)
    for (size_t i = 0; i < out.size(); ++i) {
        double v = 0;
        for (size_t j = 0; j < nd; ++j) v += double(table.values.at(i, cols[j])) * weights[j];
        out[i] = v;
    }
    return out;
}

std::vector<double> channelValues(const GateTree& tree, const io::Table& table,
                                  const std::string& name, const CompensationRef& comp,
                                  const std::string& where) {
    if (table.findChannel(name) < 0)
        if (const io::LabelColumn* labels = labelColumn(table, name)) {
            std::vector<double> out(labels->codes.size());
            for (size_t i = 0; i < out.size(); ++i)
                out[i] = double(std::max(labels->codes[i], -1) + 1);
            return out;
        }
    switch (comp.kind) {
        case CompensationRef::Kind::Uncompensated:
            return rawValues(table, column(table, name, where));
        case CompensationRef::Kind::File:
            return fileCompensated(table, name, where);
        case CompensationRef::Kind::Matrix:
            for (const SpectrumMatrix& m : tree.matrices)
                if (m.id == comp.matrix) return matrixCompensated(table, m, name, where);
            throw InputError(where + ": compensation-ref \"" + comp.matrix + "\" names no matrix");
    }
    return {};
}

// The interval of `cuts` holding v: 0 below the first cut, i for [cuts[i-1], cuts[i]); -1 for NaN.
int interval(const std::vector<double>& cuts, double v) {
    if (std::isnan(v)) return -1;
    int i = 0;
    while (size_t(i) < cuts.size() && v >= cuts[size_t(i)]) ++i;
    return i;
}

// The membership of one gate alone (its parent not applied).
class Evaluator {
  public:
    Evaluator(const GateTree& tree, const io::Table& table) : m_tree(tree), m_table(table) {
        for (size_t g = 0; g < tree.gates.size(); ++g) {
            m_owner[tree.gates[g].id] = {g, -1};
            for (size_t q = 0; q < tree.gates[g].quadrants.size(); ++q)
                m_owner[tree.gates[g].quadrants[q].id] = {g, int(q)};
        }
    }

    // Inside the gate or quadrant `id` and its parents.
    const std::vector<uint8_t>& full(const std::string& id) {
        if (auto it = m_full.find(id); it != m_full.end()) return it->second;
        auto owner = m_owner.find(id);
        if (owner == m_owner.end())
            throw InputError("the gates reference \"" + id + "\", not defined");
        const GateNode& g = m_tree.gates[owner->second.first];
        std::vector<uint8_t> in = own(g, owner->second.second);
        if (!g.parent.empty()) {
            const std::vector<uint8_t>& parent = full(g.parent);
            for (size_t i = 0; i < in.size(); ++i) in[i] &= parent[i];
        }
        return m_full[id] = std::move(in);
    }

  private:
    std::vector<double> values(const GateDimension& d, const std::string& where) {
        return dimensionValues(m_tree, m_table, d, where);
    }

    std::vector<uint8_t> own(const GateNode& g, int quadrant) {
        const size_t n = m_table.events();
        const std::string where = "gate \"" + (g.name.empty() ? g.id : g.name) + "\"";
        std::vector<uint8_t> in(n, 1);
        switch (g.kind) {
            case GateNode::Kind::Rectangle:
                for (const GateDimension& d : g.dimensions) {
                    const std::vector<double> v = values(d, where);
                    for (size_t i = 0; i < n; ++i) {
                        const bool ok = !std::isnan(v[i]) && (!d.min || v[i] >= *d.min) &&
                                        (!d.max || v[i] < *d.max);
                        if (!ok) in[i] = 0;
                    }
                }
                break;
            case GateNode::Kind::Polygon: {
                const std::vector<double> x = values(g.dimensions[0], where);
                const std::vector<double> y = values(g.dimensions[1], where);
#pragma omp parallel for schedule(static) if (n > 65536)
                for (size_t i = 0; i < n; ++i) in[i] = insideGatePolygon(g.vertices, x[i], y[i]);
                break;
            }
            case GateNode::Kind::Ellipsoid: {
                const size_t k = g.dimensions.size();
                std::vector<std::vector<double>> v;
                for (const GateDimension& d : g.dimensions) v.push_back(values(d, where));
                const std::vector<double> inv =
                    invertMatrix(g.covariance, k, where + ": covariance matrix");
                std::vector<double> diff(k);
                for (size_t i = 0; i < n; ++i) {
                    bool finite = true;
                    for (size_t a = 0; a < k; ++a) {
                        diff[a] = v[a][i] - g.mean[a];
                        finite = finite && !std::isnan(diff[a]);
                    }
                    double d2 = 0;
                    for (size_t a = 0; a < k; ++a)
                        for (size_t b = 0; b < k; ++b) d2 += diff[a] * inv[a * k + b] * diff[b];
                    in[i] = finite && d2 <= g.distanceSquare;
                }
                break;
            }
            case GateNode::Kind::Quadrant: {
                if (quadrant < 0) break;  // the gate as a whole holds every event
                const Quadrant& q = g.quadrants[size_t(quadrant)];
                for (size_t d = 0; d < g.dividers.size(); ++d) {
                    const QuadrantDivider& div = g.dividers[d];
                    const std::vector<double> v = values(div.dimension, where);
                    const int want = interval(div.values, q.locations[d]);
                    for (size_t i = 0; i < n; ++i)
                        if (interval(div.values, v[i]) != want) in[i] = 0;
                }
                break;
            }
            case GateNode::Kind::Boolean: {
                const bool any = g.operation == GateNode::Operation::Or;
                if (any) std::fill(in.begin(), in.end(), 0);
                for (const BooleanOperand& o : g.operands) {
                    const std::vector<uint8_t>& m = full(o.ref);
                    for (size_t i = 0; i < n; ++i) {
                        const uint8_t value = o.complement ? !m[i] : m[i];
                        in[i] = any ? (in[i] | value) : (in[i] & value);
                    }
                }
                if (g.operation == GateNode::Operation::Not)
                    for (uint8_t& b : in) b = !b;
                break;
            }
        }
        return in;
    }

    const GateTree& m_tree;
    const io::Table& m_table;
    std::map<std::string, std::pair<size_t, int>> m_owner;
    std::map<std::string, std::vector<uint8_t>> m_full;
};

}  // namespace

bool insideGatePolygon(const std::vector<double>& vertices, double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return false;
    const size_t n = vertices.size() / 2;
    bool inside = false;
    for (size_t i = 0, j = n - 1; i < n; j = i++) {
        const double xi = vertices[2 * i], yi = vertices[2 * i + 1];
        const double xj = vertices[2 * j], yj = vertices[2 * j + 1];
        if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
}

std::vector<double> dimensionValues(const GateTree& tree, const io::Table& table,
                                    const GateDimension& d, const std::string& where) {
    std::vector<double> v;
    if (d.ratio) {
        const std::vector<double> a =
            channelValues(tree, table, d.ratio->numerator, d.compensation, where);
        const std::vector<double> b =
            channelValues(tree, table, d.ratio->denominator, d.compensation, where);
        v.resize(a.size());
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = d.ratio->A * (a[i] - d.ratio->B) / (b[i] - d.ratio->C);
    } else {
        v = channelValues(tree, table, d.channel, d.compensation, where);
    }
    ScaleFunction(d.scale).apply(v);
    return v;
}

const std::vector<uint8_t>& GateMembership::of(const std::string& id) const {
    for (size_t p = 0; p < populations.size(); ++p)
        if (populations[p].id == id) return inside[p];
    throw InputError("no population \"" + id + "\" in the gates");
}

size_t GateMembership::count(const std::string& id) const {
    size_t k = 0;
    for (uint8_t b : of(id)) k += b;
    return k;
}

double GateCount::percentOfParent() const {
    return parentEvents == 0 ? 0.0 : 100.0 * double(events) / double(parentEvents);
}

double GateCount::percentOfAll() const {
    return allEvents == 0 ? 0.0 : 100.0 * double(events) / double(allEvents);
}

std::vector<GateCount> gateCounts(const GateTree& tree, const GateMembership& membership) {
    const size_t all = membership.inside.empty() ? 0 : membership.inside[0].size();
    return gateCountsOfEvents(tree, membership, 0, all);
}

std::vector<GateCount> gateCountsOfEvents(const GateTree& tree, const GateMembership& membership,
                                          size_t first, size_t count) {
    std::map<std::string, size_t> counts;
    for (size_t p = 0; p < membership.populations.size(); ++p) {
        const std::vector<uint8_t>& inside = membership.inside[p];
        if (first + count > inside.size())
            throw InputError("gate counts of events " + std::to_string(first) + " to " +
                             std::to_string(first + count) + " of " +
                             std::to_string(inside.size()));
        size_t k = 0;
        for (size_t i = first; i < first + count; ++i) k += inside[i];
        counts[membership.populations[p].id] = k;
    }
    // A parent that is no population (a quadrant gate as a whole) holds its own parent's events.
    std::function<size_t(const std::string&)> eventsOf = [&](const std::string& id) -> size_t {
        if (id.empty()) return count;
        if (auto it = counts.find(id); it != counts.end()) return it->second;
        const GateNode* g = tree.find(id);
        return g ? eventsOf(g->parent) : 0;
    };
    std::vector<GateCount> out;
    for (const GatePopulation& p : membership.populations)
        out.push_back({p.id, p.path, counts[p.id], eventsOf(tree.gates[p.gate].parent), count});
    return out;
}

GateMembership evaluateGates(const GateTree& tree, const io::Table& table) {
    tree.validate(table.source.empty() ? "gates" : "gates on " + table.source);
    GateMembership out;
    out.populations = tree.populations();
    Evaluator evaluator(tree, table);
    for (const GatePopulation& p : out.populations) out.inside.push_back(evaluator.full(p.id));
    if (!table.spillover) {
        auto fileComp = [](const GateDimension& d) {
            return d.compensation.kind == CompensationRef::Kind::File;
        };
        for (const GateNode& g : tree.gates) {
            bool uses = std::any_of(g.dimensions.begin(), g.dimensions.end(), fileComp);
            for (const QuadrantDivider& d : g.dividers) uses = uses || fileComp(d.dimension);
            if (uses) {
                out.notes.push_back(
                    "the gates compensate with the file's spillover matrix, but " +
                    (table.source.empty() ? std::string("the data") : table.source) +
                    " has none: its values are used as they are");
                break;
            }
        }
    }
    return out;
}

std::vector<uint8_t> populationEvents(const GateTree& tree, const io::Table& table,
                                      const std::string& idOrPath) {
    if (idOrPath.empty()) return std::vector<uint8_t>(table.events(), 1);
    tree.validate("gates");
    const GatePopulation p = tree.population(idOrPath);
    Evaluator evaluator(tree, table);
    return evaluator.full(p.id);
}

}  // namespace sepal
