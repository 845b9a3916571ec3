// Writing FlowJo 10 workspaces: each gate a Population under its parent, rectangles and
// polygons in data units with the parameter's transform for display, ellipses as FlowJo's
// foci and edge points in 256 display channels, quadrants as four rectangles, booleans as
// FlowJo's And/Or/Not nodes over populations beside them.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <sstream>

#include "core/common/error.h"
#include "core/common/number_text.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/xml_nodes.h"
#include "core/io/atomic_file.h"
#include "core/transform/channel_label.h"

namespace sepal {

namespace {

constexpr double kWrittenDisplayChannels = 256;
// The group every sample is in. Each population names it as its owner, under the group and
// under each sample alike, as FlowJo marks a group's gates (readers such as FlowKit require it).
constexpr const char* kGroup = "All Samples";

std::string fileUri(const std::string& path) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(path, error);
    std::string uri = "file:";
    for (unsigned char c : (error ? path : absolute.string())) {
        if (std::isalnum(c) || std::strchr("/-_.~:", c)) {
            uri += char(c);
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            uri += hex;
        }
    }
    return uri;
}

class Writer {
  public:
    Writer(const GateTree& tree, const std::vector<WorkspaceSample>& samples)
        : m_tree(tree),
          m_samples(samples),
          m_fileMatrix(samples.empty() ||
                       std::any_of(samples.begin(), samples.end(),
                                   [](const WorkspaceSample& s) { return s.spillover; })) {
        // Polygons and ellipses first: their shapes are straight on their scale, while a
        // rectangle or quadrant holds the same events on any.
        for (const bool shaped : {true, false})
            for (const GateNode& g : tree.gates) {
                const bool onItsScale =
                    g.kind == GateNode::Kind::Polygon || g.kind == GateNode::Kind::Ellipsoid;
                if (onItsScale != shaped) continue;
                for (const GateDimension& d : g.dimensions) noteScale(d, g, shaped);
                for (const QuadrantDivider& d : g.dividers) noteScale(d.dimension, g, shaped);
            }
        for (const GateNode& g : tree.gates) {
            if (g.kind == GateNode::Kind::Quadrant)
                for (const Quadrant& q : g.quadrants) ++m_siblings[g.parent][quadrantName(q)];
            else
                ++m_siblings[g.parent][name(g)];
            if (g.kind == GateNode::Kind::Boolean)
                for (const BooleanOperand& o : g.operands) {
                    const GateNode* target = tree.find(o.ref);
                    if (!target || target->parent != g.parent || o.complement)
                        throw InputError("the boolean gate \"" + name(g) +
                                         "\" combines populations that are " +
                                         "not beside it, or a complement: FlowJo's boolean gates "
                                         "cannot hold it");
                }
        }
        // The names FlowJo will show: quadrants beside the parent's other populations, two
        // quadrant gates' "CD3+ CD4+" there told apart by their gate's name.
        for (const GateNode& g : tree.gates) {
            if (g.kind != GateNode::Kind::Quadrant) {
                m_written[g.id] = {g.parent, name(g)};
                continue;
            }
            for (const Quadrant& q : g.quadrants) {
                const std::string own = quadrantName(q);
                m_written[q.id] = {g.parent,
                                   m_siblings[g.parent][own] > 1 ? name(g) + ": " + own : own};
            }
        }
    }

    /// The workspace's text.
    std::string write() {
        pugi::xml_document doc;
        pugi::xml_node ws = xml::startDocument(doc, "Workspace");
        ws.append_attribute("version") = "20.0";
        ws.append_attribute("flowJoVersion") = "10.6.1";
        pugi::xml_node matrices = ws.append_child("Matrices");
        for (const SpectrumMatrix& m : m_tree.matrices) writeMatrix(matrices, m);
        pugi::xml_node group = ws.append_child("Groups").append_child("GroupNode");
        group.append_attribute("name") = kGroup;
        group.append_attribute("owningGroup") = kGroup;
        pugi::xml_node groupInfo = group.append_child("Group");
        groupInfo.append_attribute("name") = kGroup;
        pugi::xml_node refs = groupInfo.append_child("SampleRefs");
        writePopulations(group.append_child("Subpopulations"), "");
        pugi::xml_node list = ws.append_child("SampleList");
        for (size_t i = 0; i < m_samples.size(); ++i) {
            const std::string id = std::to_string(i + 1);
            refs.append_child("SampleRef").append_attribute("sampleID") = id.c_str();
            pugi::xml_node sample = list.append_child("Sample");
            pugi::xml_node data = sample.append_child("DataSet");
            data.append_attribute("uri") = fileUri(m_samples[i].path).c_str();
            data.append_attribute("sampleID") = id.c_str();
            writeSampleMatrix(sample, m_samples[i], id);
            writeTransforms(sample.append_child("Transformations"));
            sample.append_child("Keywords");
            pugi::xml_node node = sample.append_child("SampleNode");
            node.append_attribute("name") =
                std::filesystem::path(m_samples[i].path).filename().string().c_str();
            node.append_attribute("count") = std::to_string(m_samples[i].events).c_str();
            node.append_attribute("sampleID") = id.c_str();
            writePopulations(node.append_child("Subpopulations"), "");
        }
        std::ostringstream out;
        doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
        return out.str();
    }

  private:
    static std::string name(const GateNode& g) { return g.name.empty() ? g.id : g.name; }
    static std::string quadrantName(const Quadrant& q) { return q.name.empty() ? q.id : q.name; }

    // The written population's names from the sample down to it: "Cells/Singlets/CD3+".
    std::string writtenPath(const std::string& id) const {
        const WrittenName& w = m_written.at(id);
        return w.parent.empty() ? w.name : writtenPath(w.parent) + "/" + w.name;
    }

    // The display transform of each parameter, one for the workspace: the scale of the
    // polygons and ellipses on it (which must agree), else of the first rectangle or quadrant.
    void noteScale(const GateDimension& d, const GateNode& g, bool shaped) {
        if (d.ratio)
            throw InputError("the gate \"" + name(g) +
                             "\" is on a ratio of two channels, which FlowJo "
                             "workspaces cannot hold; export the gates as Gating-ML (.xml)");
        // FlowJo compensates a sample with one matrix, its parameters named "Comp-" after it
        // (the file's matrix on files without one is no compensation).
        if (d.compensation.kind != CompensationRef::Kind::Uncompensated &&
            (d.compensation.kind != CompensationRef::Kind::File || m_fileMatrix)) {
            if (!m_compensation) m_compensation = d.compensation;
            if (!(*m_compensation == d.compensation))
                throw InputError("the gates use two compensations (" +
                                 compensationName(*m_compensation) + " and " +
                                 compensationName(d.compensation) + ", the gate \"" + name(g) +
                                 "\"), and FlowJo compensates a sample with one: export the "
                                 "gates as Gating-ML (.xml)");
        }
        const std::string parameter = parameterName(d);
        // FlowJo lists a compensated parameter's detector on the same transform.
        if (parameter != d.channel) m_detectorScales.emplace(uncompensatedName(parameter), d.scale);
        const auto [at, added] = m_scales.emplace(parameter, d.scale);
        if (!added && shaped && !(at->second == d.scale))
            throw InputError("the gate \"" + name(g) + "\" is drawn on " + parameter +
                             " on another scale than a polygon or ellipse before it, and a "
                             "FlowJo workspace shows a parameter on one: its shape would change; "
                             "export the gates as Gating-ML (.xml)");
    }

    static std::string compensationName(const CompensationRef& c) {
        return c.kind == CompensationRef::Kind::File ? std::string("the file's own matrix")
                                                     : "the matrix \"" + c.matrix + "\"";
    }

    // FlowJo names a compensated parameter by its detector with the matrix's prefix: a
    // fluorochrome of a square matrix is read on the detector of its row.
    std::string parameterName(const GateDimension& d) const {
        if (d.compensation.kind == CompensationRef::Kind::File)
            return m_fileMatrix ? compensatedName(d.channel) : d.channel;
        if (d.compensation.kind == CompensationRef::Kind::Matrix)
            for (const SpectrumMatrix& m : m_tree.matrices)
                if (m.id == d.compensation.matrix)
                    for (size_t i = 0; i < m.fluorochromes.size() && i < m.detectors.size(); ++i)
                        if (m.fluorochromes[i] == d.channel) return compensatedName(m.detectors[i]);
        return d.channel;
    }

    void writeMatrix(pugi::xml_node parent, const SpectrumMatrix& m) {
        if (m.fluorochromes.size() != m.detectors.size() || m.invertedAlready)
            throw InputError("the spectrum matrix \"" + m.id +
                             "\" is not a square spillover matrix, "
                             "which FlowJo workspaces need; export the gates as Gating-ML (.xml)");
        writeMatrix(parent, m.id, m.id, m.detectors, decimals(m.coefficients));
    }

    static std::vector<std::string> decimals(const std::vector<double>& values) {
        std::vector<std::string> out;
        for (double v : values) out.push_back(exactDecimal(v));
        return out;
    }

    // A spillover matrix as FlowJo writes one: its detectors listed, then a row of coefficients
    // for each; the compensated parameters are the detectors with the prefix "Comp-".
    static void writeMatrix(pugi::xml_node parent, const std::string& id, const std::string& name,
                            const std::vector<std::string>& detectors,
                            const std::vector<std::string>& coefficients) {
        pugi::xml_node n = parent.append_child("transforms:spilloverMatrix");
        n.append_attribute("spectral") = "0";
        n.append_attribute("prefix") = kCompensatedPrefix;
        n.append_attribute("name") = name.c_str();
        n.append_attribute("transforms:id") = id.c_str();
        n.append_attribute("suffix") = "";
        pugi::xml_node listed = n.append_child("data-type:parameters");
        for (const std::string& d : detectors)
            listed.append_child("data-type:parameter").append_attribute("data-type:name") =
                d.c_str();
        const size_t k = detectors.size();
        for (size_t r = 0; r < k; ++r) {
            pugi::xml_node row = n.append_child("transforms:spillover");
            row.append_attribute("data-type:parameter") = detectors[r].c_str();
            for (size_t c = 0; c < k; ++c) {
                pugi::xml_node co = row.append_child("transforms:coefficient");
                co.append_attribute("data-type:parameter") = detectors[c].c_str();
                co.append_attribute("transforms:value") = coefficients[r * k + c].c_str();
            }
        }
    }

    // FlowJo compensates a sample by the matrix inside its <Sample>, not by the workspace's list:
    // the gates' matrix, or for gates on the file's matrix the file's own ("Acquisition-defined",
    // as FlowJo names it). A file whose matrix was not read keeps none.
    void writeSampleMatrix(pugi::xml_node sample, const WorkspaceSample& s,
                           const std::string& sampleId) const {
        if (!m_compensation) return;
        if (m_compensation->kind == CompensationRef::Kind::Matrix) {
            for (const SpectrumMatrix& m : m_tree.matrices)
                if (m.id == m_compensation->matrix)
                    writeMatrix(sample, m.id, m.id, m.detectors, decimals(m.coefficients));
            return;
        }
        if (!s.ownMatrix) return;
        std::vector<std::string> coefficients;
        for (float v : s.ownMatrix->matrix.values) coefficients.push_back(shortestFloat(v));
        writeMatrix(sample, "acquisition-" + sampleId, kAcquisitionDefined, s.ownMatrix->channels,
                    coefficients);
    }

    void writeTransforms(pugi::xml_node parent) {
        std::map<std::string, GateScale> written = m_scales;
        written.insert(m_detectorScales.begin(), m_detectorScales.end());
        for (const auto& [parameter, s] : written) {
            pugi::xml_node t;
            auto put = [&](const char* key, double v) {
                t.append_attribute((std::string("transforms:") + key).c_str()) =
                    exactDecimal(v).c_str();
            };
            switch (s.kind) {
                case GateScale::Kind::None:
                case GateScale::Kind::Linear:
                    t = parent.append_child("transforms:linear");
                    put("minRange", 0);
                    put("maxRange", s.kind == GateScale::Kind::Linear ? s.T : 262144);
                    t.append_attribute("gain") = "1";
                    break;
                case GateScale::Kind::Log:
                    t = parent.append_child("transforms:log");
                    put("offset", s.T / std::pow(10.0, s.M));
                    put("decades", s.M);
                    break;
                default:
                    // FlowJo's element names are Gating-ML's (biex its own), with the display
                    // length of 256 channels; an arcsinh also names its top of scale.
                    t = parent.append_child(
                        (std::string("transforms:") + scaleKindName(s.kind)).c_str());
                    put("length", kWrittenDisplayChannels);
                    if (s.kind == GateScale::Kind::Asinh) put("maxRange", s.T);
                    for (const auto& [name, value] : scaleParameters(s))
                        if (std::string(name) != "length") put(name, value);
                    break;
            }
            t.append_child("data-type:parameter").append_attribute("data-type:name") =
                parameter.c_str();
        }
    }

    // The scale FlowJo shows a parameter on (what polygon edges and ellipses are straight in).
    const GateScale& displayScale(const GateDimension& d) const {
        return m_scales.at(parameterName(d));
    }

    pugi::xml_node dimension(pugi::xml_node gate, const GateDimension& d) {
        pugi::xml_node n = gate.append_child("gating:dimension");
        n.append_child("data-type:fcs-dimension").append_attribute("data-type:name") =
            parameterName(d).c_str();
        return n;
    }

    void vertex(pugi::xml_node parent, double x, double y) {
        pugi::xml_node v = parent.append_child("gating:vertex");
        v.append_child("gating:coordinate").append_attribute("data-type:value") =
            exactDecimal(x).c_str();
        v.append_child("gating:coordinate").append_attribute("data-type:value") =
            exactDecimal(y).c_str();
    }

    pugi::xml_node population(pugi::xml_node parent, const std::string& populationName,
                              const std::string& id) {
        pugi::xml_node p = parent.append_child("Population");
        p.append_attribute("name") = populationName.c_str();
        p.append_attribute("owningGroup") = kGroup;
        p.append_attribute("count") = "-1";
        pugi::xml_node gate = p.append_child("Gate");
        gate.append_attribute("gating:id") = id.c_str();
        return p;
    }

    void rectangle(pugi::xml_node gateParent, const std::vector<GateDimension>& dims,
                   const std::string& id) {
        pugi::xml_node r = gateParent.append_child("gating:RectangleGate");
        r.append_attribute("gating:id") = id.c_str();
        for (const GateDimension& d : dims) {
            const ScaleFunction f(d.scale);
            pugi::xml_node n = dimension(r, d);
            if (d.min) n.append_attribute("gating:min") = exactDecimal(f.inverse(*d.min)).c_str();
            if (d.max) n.append_attribute("gating:max") = exactDecimal(f.inverse(*d.max)).c_str();
        }
    }

    void writeGate(pugi::xml_node subpopulations, const GateNode& g) {
        if (g.kind == GateNode::Kind::Quadrant) {
            for (const Quadrant& q : g.quadrants) {
                std::vector<GateDimension> dims;
                for (size_t i = 0; i < g.dividers.size(); ++i) {
                    GateDimension d = g.dividers[i].dimension;
                    const std::vector<double>& cuts = g.dividers[i].values;
                    size_t k = 0;
                    while (k < cuts.size() && q.locations[i] >= cuts[k]) ++k;
                    if (k > 0) d.min = cuts[k - 1];
                    if (k < cuts.size()) d.max = cuts[k];
                    dims.push_back(d);
                }
                pugi::xml_node p = population(subpopulations, m_written.at(q.id).name, q.id);
                rectangle(p.child("Gate"), dims, q.id);
                writePopulations(p.append_child("Subpopulations"), q.id);
            }
            return;
        }
        if (g.kind == GateNode::Kind::Boolean) {
            const char* node = g.operation == GateNode::Operation::And  ? "AndNode"
                               : g.operation == GateNode::Operation::Or ? "OrNode"
                                                                        : "NotNode";
            pugi::xml_node p = subpopulations.append_child(node);
            p.append_attribute("name") = name(g).c_str();
            p.append_attribute("owningGroup") = kGroup;
            p.append_attribute("count") = "-1";
            // FlowJo names a boolean gate's populations by their paths from the sample.
            pugi::xml_node deps = p.append_child("Dependents");
            for (const BooleanOperand& o : g.operands)
                deps.append_child("Dependent").append_attribute("name") =
                    writtenPath(o.ref).c_str();
            writePopulations(p.append_child("Subpopulations"), g.id);
            return;
        }
        pugi::xml_node p = population(subpopulations, name(g), g.id);
        pugi::xml_node gate = p.child("Gate");
        switch (g.kind) {
            case GateNode::Kind::Rectangle:
                rectangle(gate, g.dimensions, g.id);
                break;
            case GateNode::Kind::Polygon: {
                pugi::xml_node n = gate.append_child("gating:PolygonGate");
                n.append_attribute("gating:id") = g.id.c_str();
                for (const GateDimension& d : g.dimensions) dimension(n, d);
                const ScaleFunction fx(g.dimensions[0].scale), fy(g.dimensions[1].scale);
                for (size_t v = 0; v + 1 < g.vertices.size(); v += 2)
                    vertex(n, fx.inverse(g.vertices[v]), fy.inverse(g.vertices[v + 1]));
                break;
            }
            case GateNode::Kind::Ellipsoid:
                ellipse(gate, g);
                break;
            default:
                break;
        }
        writePopulations(p.append_child("Subpopulations"), g.id);
    }

    // An ellipse in FlowJo's display channels: the gate's ellipse must be drawn on the scale
    // FlowJo shows (data units on a linear axis), as FlowJo's own ellipses are.
    void ellipse(pugi::xml_node gate, const GateNode& g) {
        if (g.dimensions.size() != 2)
            throw InputError(
                "the ellipsoid gate \"" + name(g) + "\" has " +
                std::to_string(g.dimensions.size()) +
                " dimensions; FlowJo's ellipses have two: export it as Gating-ML (.xml)");
        // Display position p (0 to 1) of a value of the gate's space on axis a.
        auto display = [&](size_t a, double v) {
            const GateScale& shown = displayScale(g.dimensions[a]);
            const GateScale& own = g.dimensions[a].scale;
            const double data = ScaleFunction(own).inverse(v);
            if (shown.kind == GateScale::Kind::None) return data / 262144.0;
            if (!(shown == own))
                throw InputError("the ellipse \"" + name(g) +
                                 "\" is drawn on another scale than FlowJo shows its "
                                 "axis with: export it as Gating-ML (.xml)");
            return v;
        };
        // Axes of the ellipse {x : (x - m)' C^-1 (x - m) <= d2}: eigenvectors of C.
        const double a = g.covariance[0], b = g.covariance[1], c = g.covariance[3];
        const double half = (a + c) / 2, root = std::sqrt((a - c) * (a - c) / 4 + b * b);
        const double l1 = half + root, l2 = half - root;
        const double angle = 0.5 * std::atan2(2 * b, a - c);
        const double r1 = std::sqrt(l1 * g.distanceSquare),
                     r2 = std::sqrt(std::max(l2, 0.0) * g.distanceSquare);
        const double ux = std::cos(angle), uy = std::sin(angle);
        const double f = std::sqrt(std::max(r1 * r1 - r2 * r2, 0.0));
        const double mx = g.mean[0], my = g.mean[1];
        auto point = [&](double x, double y) {
            return std::pair{display(0, x) * kWrittenDisplayChannels,
                             display(1, y) * kWrittenDisplayChannels};
        };
        pugi::xml_node n = gate.append_child("gating:EllipsoidGate");
        n.append_attribute("gating:id") = g.id.c_str();
        for (const GateDimension& d : g.dimensions) dimension(n, d);
        pugi::xml_node foci = n.append_child("gating:foci");
        for (double sign : {1.0, -1.0}) {
            auto [x, y] = point(mx + sign * f * ux, my + sign * f * uy);
            vertex(foci, x, y);
        }
        pugi::xml_node edge = n.append_child("gating:edge");
        for (auto [along, across] : {std::pair{r1, 0.0}, {-r1, 0.0}, {0.0, r2}, {0.0, -r2}}) {
            auto [x, y] = point(mx + along * ux - across * uy, my + along * uy + across * ux);
            vertex(edge, x, y);
        }
    }

    void writePopulations(pugi::xml_node subpopulations, const std::string& parent) {
        for (const GateNode& g : m_tree.gates)
            if (g.parent == parent) writeGate(subpopulations, g);
    }

    const GateTree& m_tree;
    const std::vector<WorkspaceSample>& m_samples;
    const bool m_fileMatrix;  // a listed file has its own spillover matrix (or none is listed)
    std::map<std::string, GateScale> m_scales;
    std::map<std::string, GateScale> m_detectorScales;  // the detectors of "Comp-" parameters
    std::optional<CompensationRef> m_compensation;      // the one compensation the gates use
    std::map<std::string, std::map<std::string, int>> m_siblings;  // parent -> name -> count
    struct WrittenName {
        std::string parent;  // the population it lies in ("" for the sample)
        std::string name;    // what FlowJo shows
    };
    std::map<std::string, WrittenName> m_written;  // population id -> its written name
};

}  // namespace

std::string flowJoWorkspaceText(const GateTree& tree, const std::vector<WorkspaceSample>& samples) {
    tree.validate("the gates to export");
    return Writer(tree, samples).write();
}

void writeFlowJoWorkspace(const std::string& path, const GateTree& tree,
                          const std::vector<WorkspaceSample>& samples) {
    const std::string text = flowJoWorkspaceText(tree, samples);
    io::AtomicFile file(path);
    file.write(text);
    file.commit();
}

}  // namespace sepal
