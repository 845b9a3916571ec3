#include "core/gate/gate_tree_json.h"

#include <cmath>

#include "core/common/error.h"
#include "core/gate/gate.h"

namespace sepal {

namespace {

using nlohmann::json;

const std::pair<GateNode::Kind, const char*> kKinds[] = {{GateNode::Kind::Rectangle, "rectangle"},
                                                         {GateNode::Kind::Polygon, "polygon"},
                                                         {GateNode::Kind::Ellipsoid, "ellipsoid"},
                                                         {GateNode::Kind::Quadrant, "quadrant"},
                                                         {GateNode::Kind::Boolean, "boolean"}};
const std::pair<GateNode::Operation, const char*> kOperations[] = {
    {GateNode::Operation::And, "and"},
    {GateNode::Operation::Or, "or"},
    {GateNode::Operation::Not, "not"}};
const GateScale::Kind kScaleKinds[] = {GateScale::Kind::None,    GateScale::Kind::Linear,
                                       GateScale::Kind::Log,     GateScale::Kind::Asinh,
                                       GateScale::Kind::Logicle, GateScale::Kind::Hyperlog,
                                       GateScale::Kind::Biex};

json scaleJson(const GateScale& s) {
    json j = {{"kind", scaleKindName(s.kind)}};
    for (const auto& [name, value] : scaleParameters(s)) j[name] = value;
    return j;
}

std::string compensationText(const CompensationRef& c) {
    return c.kind == CompensationRef::Kind::File     ? "FCS"
           : c.kind == CompensationRef::Kind::Matrix ? c.matrix
                                                     : "uncompensated";
}

json dimensionJson(const GateDimension& d) {
    json j = {{"compensation", compensationText(d.compensation)}, {"scale", scaleJson(d.scale)}};
    if (d.ratio)
        j["ratio"] = {{"id", d.ratio->id},
                      {"numerator", d.ratio->numerator},
                      {"denominator", d.ratio->denominator},
                      {"A", d.ratio->A},
                      {"B", d.ratio->B},
                      {"C", d.ratio->C}};
    else
        j["channel"] = d.channel;
    if (d.min) j["min"] = *d.min;
    if (d.max) j["max"] = *d.max;
    return j;
}

// Reading, with the JSON path of each field in errors.
class GateJsonReader {
  public:
    explicit GateJsonReader(std::string source) : m_source(std::move(source)) {}

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw InputError(m_source + ": " + where + " " + what);
    }
    const json& field(const json& j, const char* name, const std::string& where) const {
        if (!j.is_object() || !j.contains(name)) fail(where, std::string("needs \"") + name + "\"");
        return j[name];
    }
    double number(const json& j, const char* name, const std::string& where) const {
        const json& v = field(j, name, where);
        if (!v.is_number()) fail(where + "." + name, "is not a number");
        return v.get<double>();
    }
    double numberOr(const json& j, const char* name, double fallback,
                    const std::string& where) const {
        return j.contains(name) ? number(j, name, where) : fallback;
    }
    std::string text(const json& j, const char* name, const std::string& where) const {
        const json& v = field(j, name, where);
        if (!v.is_string()) fail(where + "." + name, "is not a string");
        return v.get<std::string>();
    }
    std::string textOr(const json& j, const char* name, const std::string& where) const {
        return j.contains(name) ? text(j, name, where) : "";
    }
    std::vector<double> numbers(const json& j, const char* name, const std::string& where) const {
        if (!j.contains(name)) return {};
        const json& a = j[name];
        if (!a.is_array()) fail(where + "." + name, "is not an array");
        std::vector<double> out;
        for (const json& v : a) {
            if (!v.is_number()) fail(where + "." + name, "holds a value that is no number");
            out.push_back(v.get<double>());
        }
        return out;
    }
    const json& array(const json& j, const char* name, const std::string& where) const {
        static const json empty = json::array();
        if (!j.contains(name)) return empty;
        if (!j[name].is_array()) fail(where + "." + name, "is not an array");
        return j[name];
    }

    GateScale scale(const json& j, const std::string& where) const {
        GateScale s;
        const std::string kind = text(j, "kind", where);
        bool known = false;
        for (GateScale::Kind k : kScaleKinds)
            if (kind == scaleKindName(k)) {
                s.kind = k;
                known = true;
            }
        if (!known)
            fail(where + ".kind",
                 "\"" + kind +
                     "\" is not a scale (none, flin, flog, fasinh, logicle, hyperlog, biex)");
        s.T = numberOr(j, "T", s.T, where);
        s.W = numberOr(j, "W", s.W, where);
        s.M = numberOr(j, "M", s.M, where);
        s.A = numberOr(j, "A", s.A, where);
        s.length = numberOr(j, "length", s.length, where);
        s.maxRange = numberOr(j, "maxRange", s.maxRange, where);
        s.neg = numberOr(j, "neg", s.neg, where);
        s.pos = numberOr(j, "pos", s.pos, where);
        s.width = numberOr(j, "width", s.width, where);
        return s;
    }

    GateDimension dimension(const json& j, const std::string& where) const {
        GateDimension d;
        const std::string comp = textOr(j, "compensation", where);
        if (comp == "FCS")
            d.compensation.kind = CompensationRef::Kind::File;
        else if (!comp.empty() && comp != "uncompensated")
            d.compensation = {CompensationRef::Kind::Matrix, comp};
        if (j.contains("scale")) d.scale = scale(j["scale"], where + ".scale");
        if (j.contains("ratio")) {
            const json& r = j["ratio"];
            const std::string w = where + ".ratio";
            d.ratio = RatioDimension{textOr(r, "id", w),        text(r, "numerator", w),
                                     text(r, "denominator", w), numberOr(r, "A", 1, w),
                                     numberOr(r, "B", 0, w),    numberOr(r, "C", 0, w)};
        } else {
            d.channel = text(j, "channel", where);
        }
        if (j.contains("min")) d.min = number(j, "min", where);
        if (j.contains("max")) d.max = number(j, "max", where);
        return d;
    }

    GateNode gate(const json& j, const std::string& where) const {
        GateNode g;
        const std::string kind = text(j, "kind", where);
        bool known = false;
        for (auto [k, name] : kKinds)
            if (kind == name) {
                g.kind = k;
                known = true;
            }
        if (!known)
            fail(where + ".kind",
                 "\"" + kind +
                     "\" is not a gate kind (rectangle, polygon, ellipsoid, quadrant, boolean)");
        g.id = text(j, "id", where);
        g.name = textOr(j, "name", where);
        g.parent = textOr(j, "parent", where);
        const json& dims = array(j, "dimensions", where);
        for (size_t i = 0; i < dims.size(); ++i)
            g.dimensions.push_back(
                dimension(dims[i], where + ".dimensions[" + std::to_string(i) + "]"));
        g.vertices = numbers(j, "vertices", where);
        g.mean = numbers(j, "mean", where);
        g.covariance = numbers(j, "covariance", where);
        g.distanceSquare = numberOr(j, "distanceSquare", 1, where);
        const json& dividers = array(j, "dividers", where);
        for (size_t i = 0; i < dividers.size(); ++i) {
            const std::string w = where + ".dividers[" + std::to_string(i) + "]";
            g.dividers.push_back({text(dividers[i], "id", w),
                                  dimension(field(dividers[i], "dimension", w), w + ".dimension"),
                                  numbers(dividers[i], "values", w)});
        }
        const json& quadrants = array(j, "quadrants", where);
        for (size_t i = 0; i < quadrants.size(); ++i) {
            const std::string w = where + ".quadrants[" + std::to_string(i) + "]";
            g.quadrants.push_back({text(quadrants[i], "id", w), textOr(quadrants[i], "name", w),
                                   numbers(quadrants[i], "locations", w)});
        }
        if (j.contains("operation")) {
            const std::string op = text(j, "operation", where);
            known = false;
            for (auto [o, name] : kOperations)
                if (op == name) {
                    g.operation = o;
                    known = true;
                }
            if (!known) fail(where + ".operation", "\"" + op + "\" is not and, or or not");
        }
        const json& operands = array(j, "operands", where);
        for (size_t i = 0; i < operands.size(); ++i) {
            const std::string w = where + ".operands[" + std::to_string(i) + "]";
            const json& o = operands[i];
            g.operands.push_back({text(o, "ref", w), o.value("complement", false)});
        }
        return g;
    }

    SpectrumMatrix matrix(const json& j, const std::string& where) const {
        SpectrumMatrix m;
        m.id = text(j, "id", where);
        for (const json& v : array(j, "fluorochromes", where))
            m.fluorochromes.push_back(v.is_string() ? v.get<std::string>() : "");
        for (const json& v : array(j, "detectors", where))
            m.detectors.push_back(v.is_string() ? v.get<std::string>() : "");
        m.coefficients = numbers(j, "coefficients", where);
        m.invertedAlready = j.value("invertedAlready", false);
        return m;
    }

  private:
    std::string m_source;
};

// An earlier flat gate: a polygon on two axes of a transform pipeline. Its arcsinh
// asinh(x / c) is Gating-ML's fasinh with T = c sinh(M ln 10), A = 0 scaled by 1 / (M ln 10),
// and its linear x * scale + offset leaves straight edges straight: the polygon is carried
// into those units.
GateNode fromFlatGate(const Gate& flat, const std::string& id, const std::string& parent,
                      std::vector<SpectrumMatrix>& matrices) {
    GateNode g;
    g.kind = GateNode::Kind::Polygon;
    g.id = id;
    g.name = flat.name;
    g.parent = parent;
    g.vertices.assign(flat.polygon.begin(), flat.polygon.end());
    CompensationRef comp;
    if (flat.axes.compensation.source == CompensationStep::Source::File) {
        comp.kind = CompensationRef::Kind::File;
    } else if (flat.axes.compensation.source == CompensationStep::Source::Stored) {
        const io::Spillover& s = flat.axes.compensation.spillover;
        SpectrumMatrix m;
        m.id = "spillover_" + std::to_string(matrices.size() + 1);
        m.fluorochromes = m.detectors = s.channels;
        for (size_t i = 0; i < s.matrix.rows * s.matrix.cols; ++i)
            m.coefficients.push_back(s.matrix.values[i]);
        for (const SpectrumMatrix& known : matrices)
            if (known.fluorochromes == m.fluorochromes && known.coefficients == m.coefficients)
                m.id = known.id;
        if (m.id == "spillover_" + std::to_string(matrices.size() + 1)) matrices.push_back(m);
        comp = {CompensationRef::Kind::Matrix, m.id};
    }
    const double M = 4.5, ln10 = std::log(10.0);
    for (size_t axis = 0; axis < 2; ++axis) {
        const ColumnStep& step = flat.axes.steps[axis];
        GateDimension d;
        d.channel = step.name;
        d.compensation = comp;
        const ColumnTransform& t = step.transform;
        switch (t.kind) {
            case ColumnTransform::Kind::None:
                break;
            case ColumnTransform::Kind::Linear:
                for (size_t v = axis; v < g.vertices.size(); v += 2)
                    g.vertices[v] = (g.vertices[v] - t.offset) / t.scale;
                break;
            case ColumnTransform::Kind::Arcsinh:
                d.scale.kind = GateScale::Kind::Asinh;
                d.scale.M = M;
                d.scale.A = 0;
                d.scale.T = t.cofactor * std::sinh(M * ln10);
                for (size_t v = axis; v < g.vertices.size(); v += 2) g.vertices[v] /= M * ln10;
                break;
            case ColumnTransform::Kind::Logicle:
                d.scale.kind = GateScale::Kind::Logicle;
                d.scale.T = t.logicle.T;
                d.scale.W = t.logicle.W;
                d.scale.M = t.logicle.M;
                d.scale.A = t.logicle.A;
                break;
        }
        g.dimensions.push_back(d);
    }
    return g;
}

}  // namespace

json gateTreeToJson(const GateTree& tree) {
    json matrices = json::array(), gates = json::array();
    for (const SpectrumMatrix& m : tree.matrices)
        matrices.push_back({{"id", m.id},
                            {"fluorochromes", m.fluorochromes},
                            {"detectors", m.detectors},
                            {"coefficients", m.coefficients},
                            {"invertedAlready", m.invertedAlready}});
    for (const GateNode& g : tree.gates) {
        const char* kind = "";
        for (auto [k, name] : kKinds)
            if (k == g.kind) kind = name;
        json j = {{"id", g.id}, {"kind", kind}};
        if (!g.name.empty()) j["name"] = g.name;
        if (!g.parent.empty()) j["parent"] = g.parent;
        if (!g.dimensions.empty()) {
            j["dimensions"] = json::array();
            for (const GateDimension& d : g.dimensions) j["dimensions"].push_back(dimensionJson(d));
        }
        if (g.kind == GateNode::Kind::Polygon) j["vertices"] = g.vertices;
        if (g.kind == GateNode::Kind::Ellipsoid) {
            j["mean"] = g.mean;
            j["covariance"] = g.covariance;
            j["distanceSquare"] = g.distanceSquare;
        }
        if (g.kind == GateNode::Kind::Quadrant) {
            j["dividers"] = json::array();
            for (const QuadrantDivider& d : g.dividers)
                j["dividers"].push_back({{"id", d.id},
                                         {"dimension", dimensionJson(d.dimension)},
                                         {"values", d.values}});
            j["quadrants"] = json::array();
            for (const Quadrant& q : g.quadrants) {
                json qj = {{"id", q.id}, {"locations", q.locations}};
                if (!q.name.empty()) qj["name"] = q.name;
                j["quadrants"].push_back(qj);
            }
        }
        if (g.kind == GateNode::Kind::Boolean) {
            for (auto [o, name] : kOperations)
                if (o == g.operation) j["operation"] = name;
            j["operands"] = json::array();
            for (const BooleanOperand& o : g.operands)
                j["operands"].push_back({{"ref", o.ref}, {"complement", o.complement}});
        }
        gates.push_back(j);
    }
    return {{"matrices", matrices}, {"gates", gates}};
}

GateTree gateTreeFromJson(const json& j, const std::string& source) {
    GateTree tree;
    const bool flatList =
        j.is_array() ||
        (j.is_object() && j.contains("gates") && j["gates"].is_array() && !j["gates"].empty() &&
         j["gates"][0].is_object() && j["gates"][0].contains("axes"));
    if (flatList) {
        // Earlier flat gates, all AND-ed: a chain.
        const std::vector<Gate> flat = gatesFromJson(j.is_array() ? j : j["gates"], source);
        std::string parent;
        for (size_t i = 0; i < flat.size(); ++i) {
            // Earlier names were unique: they serve as ids.
            std::string id = flat[i].name;
            if (id.empty() || tree.find(id)) id = "gate" + std::to_string(i + 1);
            tree.gates.push_back(fromFlatGate(flat[i], id, parent, tree.matrices));
            parent = id;
        }
        tree.validate(source);
        return tree;
    }
    GateJsonReader r(source);
    if (!j.is_object()) r.fail("gates", "must be an object with \"gates\" or an array");
    const json& matrices = r.array(j, "matrices", "gates");
    for (size_t i = 0; i < matrices.size(); ++i)
        tree.matrices.push_back(r.matrix(matrices[i], "matrices[" + std::to_string(i) + "]"));
    const json& gates = r.array(j, "gates", "gates");
    for (size_t i = 0; i < gates.size(); ++i)
        tree.gates.push_back(r.gate(gates[i], "gates[" + std::to_string(i) + "]"));
    tree.validate(source);
    return tree;
}

}  // namespace sepal
