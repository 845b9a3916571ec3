#include "core/gate/gate_tree.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "core/common/error.h"

namespace sepal {

namespace {

const char* kindName(GateNode::Kind kind) {
    switch (kind) {
        case GateNode::Kind::Rectangle:
            return "rectangle";
        case GateNode::Kind::Polygon:
            return "polygon";
        case GateNode::Kind::Ellipsoid:
            return "ellipsoid";
        case GateNode::Kind::Quadrant:
            return "quadrant";
        case GateNode::Kind::Boolean:
            return "boolean";
    }
    return "?";
}

std::string displayName(const std::string& name, const std::string& id) {
    return name.empty() ? id : name;
}

void checkFinite(const std::vector<double>& values, const std::string& where, const char* what) {
    for (double v : values)
        if (!std::isfinite(v))
            throw InputError(where + ": a value of its " + what + " is not finite");
}

}  // namespace

std::string GateDimension::label() const {
    return ratio ? "ratio " + ratio->id : channel;
}

const GateNode* GateTree::find(const std::string& id) const {
    for (const GateNode& g : gates)
        if (g.id == id) return &g;
    return nullptr;
}

std::string GateTree::detectorOf(const GateDimension& d) const {
    if (d.compensation.kind == CompensationRef::Kind::Matrix)
        for (const SpectrumMatrix& m : matrices)
            if (m.id == d.compensation.matrix && m.fluorochromes.size() == m.detectors.size())
                for (size_t i = 0; i < m.fluorochromes.size(); ++i)
                    if (m.fluorochromes[i] == d.channel) return m.detectors[i];
    return d.channel;
}

std::vector<GatePopulation> GateTree::populations() const {
    // The path of a gate or quadrant id: its parent's path and its name.
    std::map<std::string, std::pair<size_t, int>> where;
    for (size_t g = 0; g < gates.size(); ++g) {
        where[gates[g].id] = {g, -1};
        for (size_t q = 0; q < gates[g].quadrants.size(); ++q)
            where[gates[g].quadrants[q].id] = {g, int(q)};
    }
    std::map<std::string, std::string> paths;
    std::function<std::string(const std::string&, int)> pathOf = [&](const std::string& id,
                                                                     int depth) -> std::string {
        if (auto it = paths.find(id); it != paths.end()) return it->second;
        auto it = where.find(id);
        if (it == where.end() || depth > int(gates.size()) + 1) return id;
        const GateNode& g = gates[it->second.first];
        std::string name = displayName(g.name, g.id);
        if (it->second.second >= 0) {
            const Quadrant& q = g.quadrants[size_t(it->second.second)];
            name += "/" + displayName(q.name, q.id);
        }
        std::string path = g.parent.empty() ? name : pathOf(g.parent, depth + 1) + "/" + name;
        paths[id] = path;
        return path;
    };
    std::vector<GatePopulation> out;
    for (size_t g = 0; g < gates.size(); ++g) {
        if (gates[g].kind == GateNode::Kind::Quadrant) {
            for (size_t q = 0; q < gates[g].quadrants.size(); ++q)
                out.push_back(
                    {gates[g].quadrants[q].id, pathOf(gates[g].quadrants[q].id, 0), g, int(q)});
        } else {
            out.push_back({gates[g].id, pathOf(gates[g].id, 0), g, -1});
        }
    }
    return out;
}

GatePopulation GateTree::population(const std::string& idOrPath) const {
    const std::string wanted =
        !idOrPath.empty() && idOrPath.front() == '/' ? idOrPath.substr(1) : idOrPath;
    const std::vector<GatePopulation> all = populations();
    for (const GatePopulation& p : all)
        if (p.path == wanted) return p;
    for (const GatePopulation& p : all)
        if (p.id == wanted) return p;
    // A path's last name alone, when only one population has it.
    const GatePopulation* only = nullptr;
    size_t matches = 0;
    for (const GatePopulation& p : all) {
        const size_t slash = p.path.rfind('/');
        if ((slash == std::string::npos ? p.path : p.path.substr(slash + 1)) == wanted) {
            only = &p;
            ++matches;
        }
    }
    if (matches == 1) return *only;
    std::string list;
    for (const GatePopulation& p : all) list += (list.empty() ? "" : ", ") + p.path;
    throw InputError(
        "no population \"" + idOrPath + "\" in the gates" +
        (matches > 1 ? " (several populations end with that name: give the path)" : "") +
        "; there are: " + (list.empty() ? "none" : list));
}

void GateTree::validate(const std::string& source) const {
    std::set<std::string> ids, matrixIds;
    for (const SpectrumMatrix& m : matrices) {
        const std::string where = source + ": spectrum matrix \"" + m.id + "\"";
        if (m.id.empty()) throw InputError(source + ": a spectrum matrix has no id");
        if (!matrixIds.insert(m.id).second) throw InputError(where + " is defined twice");
        if (m.fluorochromes.empty() || m.detectors.size() < m.fluorochromes.size() ||
            m.coefficients.size() != m.fluorochromes.size() * m.detectors.size())
            throw InputError(where + " needs as many detectors as fluorochromes or more and " +
                             "one coefficient per fluorochrome and detector");
        checkFinite(m.coefficients, where, "coefficients");
    }
    for (const GateNode& g : gates) {
        if (g.id.empty()) throw InputError(source + ": a gate has no id");
        if (!ids.insert(g.id).second)
            throw InputError(source + ": the id \"" + g.id + "\" is used by two gates");
        for (const Quadrant& q : g.quadrants) {
            if (q.id.empty())
                throw InputError(source + ": a quadrant of \"" + g.id + "\" has no id");
            if (!ids.insert(q.id).second)
                throw InputError(source + ": the id \"" + q.id + "\" is used twice");
        }
    }
    auto checkDimension = [&](const GateDimension& d, const std::string& where) {
        if (d.channel.empty() && !d.ratio)
            throw InputError(where + ": a dimension names no channel");
        if (d.ratio && (d.ratio->numerator.empty() || d.ratio->denominator.empty()))
            throw InputError(where + ": the ratio " + d.ratio->id + " needs two channels");
        if (d.compensation.kind == CompensationRef::Kind::Matrix &&
            !matrixIds.count(d.compensation.matrix))
            throw InputError(where + ": compensation-ref \"" + d.compensation.matrix +
                             "\" names no spectrum matrix of the file");
        validateScale(d.scale, where + " (dimension " + d.label() + ")");
        if (d.min && d.max && !(*d.min <= *d.max))
            throw InputError(where + ": dimension " + d.label() + " has min > max");
        if ((d.min && std::isnan(*d.min)) || (d.max && std::isnan(*d.max)))
            throw InputError(where + ": dimension " + d.label() + " has a bound that is NaN");
    };
    for (const GateNode& g : gates) {
        const std::string where = source + ": " + kindName(g.kind) + " gate \"" + g.id + "\"";
        if (!g.parent.empty() && !ids.count(g.parent))
            throw InputError(where + ": its parent \"" + g.parent + "\" is not in the file");
        for (const GateDimension& d : g.dimensions) checkDimension(d, where);
        const size_t n = g.dimensions.size();
        switch (g.kind) {
            case GateNode::Kind::Rectangle:
                if (n == 0) throw InputError(where + " has no dimension");
                for (const GateDimension& d : g.dimensions)
                    if (!d.min && !d.max)
                        throw InputError(where + ": dimension " + d.label() +
                                         " has neither min nor max");
                break;
            case GateNode::Kind::Polygon:
                if (n != 2)
                    throw InputError(where + " needs 2 dimensions, it has " + std::to_string(n));
                if (g.vertices.size() < 6 || g.vertices.size() % 2)
                    throw InputError(where + " needs at least 3 vertices");
                checkFinite(g.vertices, where, "vertices");
                break;
            case GateNode::Kind::Ellipsoid:
                if (n < 2) throw InputError(where + " needs 2 or more dimensions");
                if (g.mean.size() != n || g.covariance.size() != n * n)
                    throw InputError(where + ": its mean needs " + std::to_string(n) +
                                     " values and its covariance matrix " + std::to_string(n * n));
                checkFinite(g.mean, where, "mean");
                checkFinite(g.covariance, where, "covariance matrix");
                if (!(g.distanceSquare >= 0) || !std::isfinite(g.distanceSquare))
                    throw InputError(where + ": distanceSquare must be finite and >= 0");
                break;
            case GateNode::Kind::Quadrant:
                if (g.dividers.empty()) throw InputError(where + " has no divider");
                for (const QuadrantDivider& d : g.dividers) {
                    checkDimension(d.dimension, where);
                    if (d.values.empty())
                        throw InputError(where + ": divider \"" + d.id + "\" has no value");
                    checkFinite(d.values, where, "divider values");
                    for (size_t i = 1; i < d.values.size(); ++i)
                        if (!(d.values[i - 1] < d.values[i]))
                            throw InputError(where + ": divider \"" + d.id +
                                             "\" has values out of increasing order");
                }
                if (g.quadrants.empty()) throw InputError(where + " has no quadrant");
                for (const Quadrant& q : g.quadrants)
                    if (q.locations.size() != g.dividers.size())
                        throw InputError(where + ": quadrant \"" + q.id +
                                         "\" needs one position per divider");
                break;
            case GateNode::Kind::Boolean: {
                const size_t want = g.operation == GateNode::Operation::Not ? 1 : 2;
                if (g.operation == GateNode::Operation::Not ? g.operands.size() != 1
                                                            : g.operands.size() < 2)
                    throw InputError(where + " needs " +
                                     (want == 1 ? "one operand" : "2 or more operands"));
                for (const BooleanOperand& o : g.operands) {
                    if (!ids.count(o.ref))
                        throw InputError(where + ": it references \"" + o.ref +
                                         "\", not in the file");
                    if (o.ref == g.id) throw InputError(where + " references itself");
                }
                break;
            }
        }
    }
    // Parents and boolean references may not form a cycle.
    std::map<std::string, std::vector<std::string>> uses;
    for (const GateNode& g : gates) {
        std::vector<std::string> owners{g.id};
        for (const Quadrant& q : g.quadrants) owners.push_back(q.id);
        for (const std::string& owner : owners) {
            if (!g.parent.empty()) uses[owner].push_back(g.parent);
            for (const BooleanOperand& o : g.operands) uses[owner].push_back(o.ref);
        }
    }
    std::map<std::string, int> state;  // 1: on the path, 2: done
    // Deeper trees than any strategy draws would only exhaust the stack of the recursive walks.
    constexpr int kDeepest = 1000;
    std::function<void(const std::string&, int)> visit = [&](const std::string& id, int depth) {
        if (state[id] == 2) return;
        if (state[id] == 1)
            throw InputError(source + ": the gate \"" + id +
                             "\" is its own ancestor (a cycle of parents or references)");
        if (depth > kDeepest)
            throw InputError(source + ": the gates nest deeper than " + std::to_string(kDeepest) +
                             " levels below \"" + id + "\"");
        state[id] = 1;
        for (const std::string& next : uses[id]) visit(next, depth + 1);
        state[id] = 2;
    };
    for (const std::string& id : ids) visit(id, 0);
}

}  // namespace sepal
