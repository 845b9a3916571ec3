// Reading FlowJo 10 workspaces. FlowJo stores rectangle and polygon coordinates in data units
// and draws polygon edges straight on the parameter's display transform, so a polygon's
// vertices are carried into that transform's units; ellipses are stored in display units of
// 256 channels over the transform's range.

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <pugixml.hpp>

#include "core/common/error.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/xml_nodes.h"
#include "core/transform/channel_label.h"

namespace sepal {

namespace {

using xml::attribute;
using xml::child;
using xml::children;
using xml::is;

// FlowJo's display resolution for ellipse coordinates.
constexpr double kDisplayChannels = 256;
// The biex channel range FlowJo's own tables are computed on.
constexpr double kBiexChannels = 4096;

// A parameter's display transform: its scale, and for a linear one the displayed range.
struct Display {
    GateScale scale;
    bool linear = true;
    double min = 0, max = 262144;
    // Display position (0 to 1) of a data value, and back.
    double position(double x) const {
        if (linear) return (x - min) / (max - min);
        return ScaleFunction(scale)(x);
    }
    double data(double p) const {
        if (linear) return min + p * (max - min);
        return ScaleFunction(scale).inverse(p);
    }
};

std::string percentDecoded(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() &&
            std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += char(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

class FlowJoReader : xml::AttributeReader {
  public:
    using AttributeReader::AttributeReader;

    FlowJoWorkspace read(const pugi::xml_document& doc) {
        const pugi::xml_node root = doc.document_element();
        if (!root || !is(root, "Workspace"))
            throw InputError(source() + " is not a FlowJo workspace (no <Workspace> root element)");
        for (pugi::xml_node m : children(child(root, "Matrices"), "spilloverMatrix")) readMatrix(m);
        FlowJoWorkspace ws;
        std::map<std::string, std::map<std::string, Display>> displays;  // per sample id
        std::map<std::string, std::optional<int>> sampleMatrices;        // per sample id
        for (pugi::xml_node s : children(child(root, "SampleList"), "Sample")) {
            FlowJoSample sample;
            const pugi::xml_node data = child(s, "DataSet");
            sample.id = text(data, "sampleID");
            sample.uri = text(data, "uri", false);
            sample.fileName = percentDecoded(baseName(sample.uri));
            // FlowJo compensates a sample by the matrix inside it; the workspace's list is a
            // library of matrices, not what is applied.
            m_sampleMatrix.reset();
            for (pugi::xml_node m : children(s, "spilloverMatrix")) m_sampleMatrix = readMatrix(m);
            sampleMatrices[sample.id] = m_sampleMatrix;
            m_displays = readDisplays(child(s, "Transformations"));
            displays[sample.id] = m_displays;
            m_counts = &sample.counts;
            m_tree = GateTree{};
            readPopulations(child(child(s, "SampleNode"), "Subpopulations"), "");
            finish(sample.tree);
            ws.samples.push_back(std::move(sample));
        }
        for (pugi::xml_node g : children(child(root, "Groups"), "GroupNode")) {
            FlowJoGroup group;
            group.name = text(g, "name", false);
            for (pugi::xml_node r : children(child(child(g, "Group"), "SampleRefs"), "SampleRef"))
                group.sampleIds.push_back(text(r, "sampleID"));
            // A group's gates are drawn on its first sample's transforms and compensated by its
            // matrix.
            m_displays = group.sampleIds.empty() ? std::map<std::string, Display>{}
                                                 : displays[group.sampleIds.front()];
            m_sampleMatrix =
                group.sampleIds.empty() ? std::nullopt : sampleMatrices[group.sampleIds.front()];
            std::map<std::string, long> ignored;
            m_counts = &ignored;
            m_tree = GateTree{};
            readPopulations(child(g, "Subpopulations"), "");
            finish(group.tree);
            ws.groups.push_back(std::move(group));
        }
        for (const FlowJoSample& s : ws.samples)
            if (!s.tree.empty()) {
                ws.tree = s.tree;
                return ws;
            }
        for (const FlowJoGroup& g : ws.groups)
            if (!g.tree.empty()) {
                ws.tree = g.tree;
                break;
            }
        return ws;
    }

  private:
    // FlowJo's compensation: fluorochromes are the prefixed names gates use ("Comp-FL1-A").
    // Returns the matrix's index in m_matrices, or kFileMatrix for the file's own.
    int readMatrix(const pugi::xml_node& m) {
        // The file's own matrix: its "Comp-" parameters are read as the file's compensation.
        if (text(m, "name", false) == kAcquisitionDefined) return kFileMatrix;
        SpectrumMatrix matrix;
        matrix.id = text(m, "id", false);
        if (matrix.id.empty()) matrix.id = text(m, "name", false);
        if (matrix.id.empty()) matrix.id = "matrix" + std::to_string(m_matrices.size() + 1);
        const std::string prefix = text(m, "prefix", false);
        for (pugi::xml_node row : children(m, "spillover")) {
            const std::string param = text(row, "parameter");
            matrix.detectors.push_back(param);
            matrix.fluorochromes.push_back(prefix + param);
        }
        const size_t n = matrix.detectors.size();
        matrix.coefficients.assign(n * n, 0.0);
        size_t r = 0;
        for (pugi::xml_node row : children(m, "spillover")) {
            for (pugi::xml_node c : children(row, "coefficient")) {
                const std::string param = text(c, "parameter");
                size_t col = n;
                for (size_t j = 0; j < n; ++j)
                    if (matrix.detectors[j] == param) col = j;
                if (col == n) fail(c, "names the parameter " + param + ", not a row of the matrix");
                matrix.coefficients[r * n + col] = number(c, "value");
            }
            ++r;
        }
        for (size_t k = 0; k < m_matrices.size(); ++k)
            if (m_matrices[k].id == matrix.id) return int(k);
        m_matrices.push_back(matrix);
        return int(m_matrices.size()) - 1;
    }

    std::map<std::string, Display> readDisplays(const pugi::xml_node& transforms) const {
        std::map<std::string, Display> out;
        for (pugi::xml_node t : transforms.children()) {
            Display d;
            if (is(t, "linear")) {
                d.min = optionalNumber(t, "minRange").value_or(0.0);
                d.max = optionalNumber(t, "maxRange").value_or(262144.0);
                if (!(d.max > d.min)) fail(t, "needs maxRange > minRange");
            } else {
                d.linear = false;
                GateScale& s = d.scale;
                if (is(t, "log")) {
                    s.kind = GateScale::Kind::Log;
                    const double offset = optionalNumber(t, "offset").value_or(1.0),
                                 decades = optionalNumber(t, "decades").value_or(4.5);
                    s.M = decades;
                    s.T = offset * std::pow(10.0, decades);
                } else if (is(t, "fasinh")) {
                    s.kind = GateScale::Kind::Asinh;
                    s.T = number(t, "T");
                    s.M = number(t, "M");
                    s.A = optionalNumber(t, "A").value_or(0.0);
                } else if (is(t, "logicle") || is(t, "hyperlog")) {
                    s.kind =
                        is(t, "logicle") ? GateScale::Kind::Logicle : GateScale::Kind::Hyperlog;
                    s.T = number(t, "T");
                    s.W = number(t, "W");
                    s.M = number(t, "M");
                    s.A = optionalNumber(t, "A").value_or(0.0);
                } else if (is(t, "biex")) {
                    s.kind = GateScale::Kind::Biex;
                    s.length = kBiexChannels;
                    s.maxRange = optionalNumber(t, "maxRange").value_or(262144.0);
                    s.neg = optionalNumber(t, "neg").value_or(0.0);
                    s.width = optionalNumber(t, "width").value_or(-10.0);
                    s.pos = optionalNumber(t, "pos").value_or(4.418539922);
                } else {
                    continue;  // a transform FlowJo may add later: the data's own units
                }
                validateScale(s, source() + ": the transform of " + parameterName(t));
            }
            out[parameterName(t)] = d;
        }
        return out;
    }

    std::string parameterName(const pugi::xml_node& t) const {
        return text(child(t, "parameter"), "name", false);
    }

    // The compensation of a dimension FlowJo names `name` ("Comp-FL1-A" is compensated FL1-A).
    GateDimension dimension(const std::string& name) const {
        GateDimension d;
        d.channel = name;
        // The sample's own matrix where it has one, else the first of the workspace's that
        // compensates the name.
        for (size_t m = 0; m < m_matrices.size(); ++m) {
            if (m_sampleMatrix && *m_sampleMatrix != int(m)) continue;
            for (const std::string& f : m_matrices[m].fluorochromes)
                if (f == name) {
                    d.compensation = {CompensationRef::Kind::Matrix, m_matrices[m].id};
                    return d;
                }
        }
        if (const std::string raw = uncompensatedName(name); !raw.empty()) {
            // The acquisition-defined matrix: the file's own spillover.
            d.channel = raw;
            d.compensation.kind = CompensationRef::Kind::File;
        }
        return d;
    }

    Display displayOf(const std::string& name) const {
        if (auto it = m_displays.find(name); it != m_displays.end()) return it->second;
        if (auto it = m_displays.find(uncompensatedName(name)); it != m_displays.end())
            return it->second;
        return Display{};
    }

    std::vector<double> coordinates(const pugi::xml_node& vertex) const {
        std::vector<double> out;
        for (pugi::xml_node c : children(vertex, "coordinate")) out.push_back(number(c, "value"));
        if (out.size() != 2) fail(vertex, "needs two coordinates");
        return out;
    }

    GateNode gate(const pugi::xml_node& element, const std::string& id, const std::string& name,
                  const std::string& parent) const {
        GateNode g;
        g.id = id;
        g.name = name;
        g.parent = parent;
        std::vector<std::string> names;
        for (pugi::xml_node d : children(element, "dimension")) {
            names.push_back(text(child(d, "fcs-dimension"), "name"));
            GateDimension dim = dimension(names.back());
            if (attribute(d, "min")) dim.min = number(d, "min");
            if (attribute(d, "max")) dim.max = number(d, "max");
            g.dimensions.push_back(dim);
        }
        if (is(element, "RectangleGate")) {
            // Bounds in data units hold the same events on any scale: the rectangle takes the
            // parameter's display transform (what its plot starts on, and what a workspace
            // written back shows), its bounds mapped onto it.
            g.kind = GateNode::Kind::Rectangle;
            for (size_t a = 0; a < g.dimensions.size(); ++a) {
                const Display shown = displayOf(names[a]);
                if (shown.linear) continue;
                GateDimension& dim = g.dimensions[a];
                const ScaleFunction f(shown.scale);
                if (dim.min) dim.min = f(*dim.min);
                if (dim.max) dim.max = f(*dim.max);
                dim.scale = shown.scale;
            }
        } else if (is(element, "PolygonGate")) {
            g.kind = GateNode::Kind::Polygon;
            if (names.size() != 2) fail(element, "needs two dimensions");
            const Display dx = displayOf(names[0]), dy = displayOf(names[1]);
            for (pugi::xml_node v : children(element, "vertex")) {
                const std::vector<double> xy = coordinates(v);
                g.vertices.push_back(dx.linear ? xy[0] : ScaleFunction(dx.scale)(xy[0]));
                g.vertices.push_back(dy.linear ? xy[1] : ScaleFunction(dy.scale)(xy[1]));
            }
            if (!dx.linear) g.dimensions[0].scale = dx.scale;
            if (!dy.linear) g.dimensions[1].scale = dy.scale;
        } else if (is(element, "EllipsoidGate")) {
            ellipse(element, names, g);
        } else {
            fail(element, "is a gate kind Sepal does not read from FlowJo workspaces");
        }
        return g;
    }

    // FlowJo's ellipse: two foci and four edge points (the ends of the major, then the minor
    // axis) in display channels; made a Gating-ML ellipsoid with distanceSquare 1.
    void ellipse(const pugi::xml_node& element, const std::vector<std::string>& names,
                 GateNode& g) const {
        g.kind = GateNode::Kind::Ellipsoid;
        if (names.size() != 2) fail(element, "needs two dimensions");
        const std::vector<pugi::xml_node> edge = children(child(element, "edge"), "vertex");
        if (edge.size() != 4) fail(element, "needs four edge vertices");
        const Display display[2] = {displayOf(names[0]), displayOf(names[1])};
        // Points in the ellipse's own space: data units on a linear axis, else scale units.
        double p[4][2];
        for (size_t i = 0; i < 4; ++i) {
            const std::vector<double> xy = coordinates(edge[i]);
            for (size_t a = 0; a < 2; ++a) {
                const double position = xy[a] / kDisplayChannels;
                p[i][a] = display[a].linear ? display[a].data(position) : position;
            }
        }
        for (size_t a = 0; a < 2; ++a)
            if (!display[a].linear) g.dimensions[a].scale = display[a].scale;
        const double cx = (p[0][0] + p[1][0]) / 2, cy = (p[0][1] + p[1][1]) / 2;
        const double ux = p[0][0] - cx, uy = p[0][1] - cy;
        const double major = std::hypot(ux, uy);
        const double minor = std::hypot(p[2][0] - p[3][0], p[2][1] - p[3][1]) / 2;
        if (!(major > 0) || !(minor > 0)) fail(element, "has an ellipse of no area");
        const double c = ux / major, s = uy / major;
        const double a2 = major * major, b2 = minor * minor;
        g.mean = {cx, cy};
        g.covariance = {a2 * c * c + b2 * s * s, (a2 - b2) * c * s, (a2 - b2) * c * s,
                        a2 * s * s + b2 * c * c};
        g.distanceSquare = 1;
    }

    void readPopulations(const pugi::xml_node& subpopulations, const std::string& parent,
                         int depth = 0) {
        if (depth > 1000) fail(subpopulations, "populations nest deeper than 1000 levels");
        std::map<std::string, std::string> siblings;  // name -> id, for boolean nodes
        for (pugi::xml_node p : subpopulations.children()) {
            const std::string name = text(p, "name", false);
            if (is(p, "Population")) {
                const pugi::xml_node gateElement = child(p, "Gate");
                pugi::xml_node shape;
                for (pugi::xml_node c : gateElement.children())
                    if (std::strstr(c.name(), "Gate")) shape = c;
                if (!shape) fail(p, "population \"" + name + "\" has no gate");
                std::string id = text(gateElement, "id", false);
                if (id.empty() || m_tree.find(id))
                    id = "population" + std::to_string(m_tree.gates.size() + 1);
                m_tree.gates.push_back(gate(shape, id, name, parent));
                (*m_counts)[id] = std::lround(optionalNumber(p, "count").value_or(-1.0));
                siblings[name] = id;
                readPopulations(child(p, "Subpopulations"), id, depth + 1);
            } else if (is(p, "AndNode") || is(p, "OrNode") || is(p, "NotNode")) {
                GateNode g;
                g.kind = GateNode::Kind::Boolean;
                g.operation = is(p, "AndNode")  ? GateNode::Operation::And
                              : is(p, "OrNode") ? GateNode::Operation::Or
                                                : GateNode::Operation::Not;
                g.id = "boolean" + std::to_string(m_tree.gates.size() + 1);
                g.name = name;
                g.parent = parent;
                for (pugi::xml_node d : children(child(p, "Dependents"), "Dependent")) {
                    std::string ref = text(d, "name");
                    const size_t slash = ref.find_last_of('/');
                    if (slash != std::string::npos) ref = ref.substr(slash + 1);
                    auto it = siblings.find(ref);
                    if (it == siblings.end())
                        fail(d, "names \"" + ref + "\", not a population beside the boolean gate");
                    g.operands.push_back({it->second, false});
                }
                (*m_counts)[g.id] = std::lround(optionalNumber(p, "count").value_or(-1.0));
                m_tree.gates.push_back(g);
                siblings[name] = g.id;
                readPopulations(child(p, "Subpopulations"), g.id, depth + 1);
            }
        }
    }

    void finish(GateTree& out) {
        m_tree.matrices = m_matrices;
        m_tree.validate(source());
        out = std::move(m_tree);
        m_tree = GateTree{};
    }

    static constexpr int kFileMatrix = -1;  // readMatrix's index of the file's own matrix
    std::vector<SpectrumMatrix> m_matrices;
    std::optional<int> m_sampleMatrix;  // the matrix inside the sample being read, if any
    std::map<std::string, Display> m_displays;
    std::map<std::string, long>* m_counts = nullptr;
    GateTree m_tree;
};

}  // namespace

const FlowJoSample* FlowJoWorkspace::sampleFor(const std::string& path) const {
    const std::string name = baseName(path);
    for (const FlowJoSample& s : samples)
        if (s.fileName == name) return &s;
    return nullptr;
}

const GateTree& FlowJoWorkspace::treeFor(const std::string& path) const {
    const FlowJoSample* sample = sampleFor(path);
    return sample ? sample->tree : tree;
}

FlowJoWorkspace readFlowJoWorkspace(const std::string& text, const std::string& source) {
    pugi::xml_document doc;
    xml::parseDocument(doc, text, source);
    return FlowJoReader(source).read(doc);
}

}  // namespace sepal
