#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <pugixml.hpp>
#include <sstream>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/gate/gating_ml.h"
#include "core/gate/xml_nodes.h"
#include "core/io/regular_file.h"

namespace sepal {

namespace {

using xml::attribute;
using xml::child;
using xml::children;
using xml::is;
using xml::localName;

class GatingMlReader : xml::AttributeReader {
  public:
    using AttributeReader::AttributeReader;

    GateTree read(const pugi::xml_document& doc) {
        const pugi::xml_node root = doc.document_element();
        if (!root || !is(root, "Gating-ML"))
            throw InputError(source() + " is not a Gating-ML document (its root element is <" +
                             std::string(root ? root.name() : "") + ">, not <gating:Gating-ML>)");
        GateTree tree;
        for (pugi::xml_node n : root.children()) {
            if (is(n, "transformation"))
                readTransformation(n);
            else if (is(n, "spectrumMatrix"))
                tree.matrices.push_back(readMatrix(n));
        }
        for (pugi::xml_node n : root.children()) {
            const std::string kind = localName(n.name());
            if (kind.size() > 4 && kind.compare(kind.size() - 4, 4, "Gate") == 0)
                tree.gates.push_back(readGate(n));
        }
        tree.validate(source());
        return tree;
    }

  private:
    void readTransformation(const pugi::xml_node& n) {
        const std::string id = text(n, "id");
        const pugi::xml_node f = n.first_child();
        if (!f) fail(n, "holds no transformation");
        if (is(f, "fratio")) {
            RatioDimension r;
            r.id = id;
            r.A = number(f, "A");
            r.B = number(f, "B");
            r.C = number(f, "C");
            const auto dims = children(f, "fcs-dimension");
            if (dims.size() != 2) fail(f, "needs two fcs-dimension elements");
            r.numerator = text(dims[0], "name");
            r.denominator = text(dims[1], "name");
            m_ratios[id] = r;
            return;
        }
        GateScale s;
        if (is(f, "flin")) {
            s.kind = GateScale::Kind::Linear;
            s.T = number(f, "T");
            s.A = number(f, "A");
        } else if (is(f, "flog")) {
            s.kind = GateScale::Kind::Log;
            s.T = number(f, "T");
            s.M = number(f, "M");
        } else if (is(f, "fasinh")) {
            s.kind = GateScale::Kind::Asinh;
            s.T = number(f, "T");
            s.M = number(f, "M");
            s.A = number(f, "A");
        } else if (is(f, "logicle") || is(f, "hyperlog")) {
            s.kind = is(f, "logicle") ? GateScale::Kind::Logicle : GateScale::Kind::Hyperlog;
            s.T = number(f, "T");
            s.W = number(f, "W");
            s.M = number(f, "M");
            s.A = number(f, "A");
        } else {
            fail(f,
                 "is not a Gating-ML 2.0 transformation (flin, flog, fasinh, logicle, "
                 "hyperlog, fratio)");
        }
        validateScale(s, source() + ": transformation \"" + id + "\"");
        m_scales[id] = s;
    }

    SpectrumMatrix readMatrix(const pugi::xml_node& n) {
        SpectrumMatrix m;
        m.id = text(n, "id");
        m.invertedAlready = text(n, "matrix-inverted-already", false) == "true";
        for (pugi::xml_node d : children(child(n, "fluorochromes"), "fcs-dimension"))
            m.fluorochromes.push_back(text(d, "name"));
        for (pugi::xml_node d : children(child(n, "detectors"), "fcs-dimension"))
            m.detectors.push_back(text(d, "name"));
        for (pugi::xml_node row : children(n, "spectrum"))
            for (pugi::xml_node c : children(row, "coefficient"))
                m.coefficients.push_back(number(c, "value"));
        return m;
    }

    CompensationRef compensation(const pugi::xml_node& n) const {
        const std::string ref = text(n, "compensation-ref", false);
        if (ref.empty() || ref == "uncompensated") return {};
        if (ref == "FCS") return {CompensationRef::Kind::File, ""};
        return {CompensationRef::Kind::Matrix, ref};
    }

    GateDimension dimension(const pugi::xml_node& n) const {
        GateDimension d;
        d.compensation = compensation(n);
        const std::string scale = text(n, "transformation-ref", false);
        if (!scale.empty()) {
            auto it = m_scales.find(scale);
            if (it == m_scales.end())
                fail(n, "transformation-ref \"" + scale + "\" is not defined");
            d.scale = it->second;
        }
        d.min = optionalNumber(n, "min");
        d.max = optionalNumber(n, "max");
        if (pugi::xml_node fcs = child(n, "fcs-dimension")) {
            d.channel = text(fcs, "name");
        } else if (pugi::xml_node made = child(n, "new-dimension")) {
            const std::string ref = text(made, "transformation-ref");
            auto it = m_ratios.find(ref);
            if (it == m_ratios.end()) fail(made, "transformation-ref \"" + ref + "\" is no fratio");
            d.ratio = it->second;
        } else {
            fail(n, "names no fcs-dimension or new-dimension");
        }
        return d;
    }

    // The name Sepal keeps in an element's custom_info, else Cytobank's (<cytobank><name>:
    // its ids are codes such as "Gate_1_Q2VsbHM_"); empty when none.
    std::string sepalName(const pugi::xml_node& n) const {
        pugi::xml_node info = child(n, "custom_info");
        if (!info) return "";
        if (pugi::xml_node mine = child(info, "sepal")) return text(mine, "name", false);
        if (pugi::xml_node cytobank = child(info, "cytobank"))
            return trimmed(child(cytobank, "name").text().as_string());
        return "";
    }

    std::vector<double> coordinates(const pugi::xml_node& n) const {
        std::vector<double> out;
        for (pugi::xml_node c : children(n, "coordinate")) out.push_back(number(c, "value"));
        return out;
    }

    GateNode readGate(const pugi::xml_node& n) {
        GateNode g;
        g.id = text(n, "id");
        g.parent = text(n, "parent_id", false);
        g.name = sepalName(n);
        for (pugi::xml_node d : children(n, "dimension")) g.dimensions.push_back(dimension(d));
        if (is(n, "RectangleGate")) {
            g.kind = GateNode::Kind::Rectangle;
        } else if (is(n, "PolygonGate")) {
            g.kind = GateNode::Kind::Polygon;
            for (pugi::xml_node v : children(n, "vertex")) {
                const std::vector<double> xy = coordinates(v);
                if (xy.size() != 2) fail(v, "needs two coordinates");
                g.vertices.insert(g.vertices.end(), xy.begin(), xy.end());
            }
        } else if (is(n, "EllipsoidGate")) {
            g.kind = GateNode::Kind::Ellipsoid;
            g.mean = coordinates(child(n, "mean"));
            for (pugi::xml_node row : children(child(n, "covarianceMatrix"), "row"))
                for (pugi::xml_node e : children(row, "entry"))
                    g.covariance.push_back(number(e, "value"));
            const pugi::xml_node d2 = child(n, "distanceSquare");
            if (!d2) fail(n, "needs a distanceSquare");
            g.distanceSquare = number(d2, "value");
        } else if (is(n, "QuadrantGate")) {
            g.kind = GateNode::Kind::Quadrant;
            std::map<std::string, size_t> dividerIndex;
            for (pugi::xml_node d : children(n, "divider")) {
                QuadrantDivider div;
                div.id = text(d, "id");
                div.dimension = dimension(d);
                for (pugi::xml_node v : children(d, "value"))
                    div.values.push_back(parse(v, v.text().get(), "value"));
                dividerIndex[div.id] = g.dividers.size();
                g.dividers.push_back(std::move(div));
            }
            for (pugi::xml_node q : children(n, "Quadrant")) {
                Quadrant quadrant;
                quadrant.id = text(q, "id");
                quadrant.name = sepalName(q);
                quadrant.locations.assign(g.dividers.size(), std::nan(""));
                for (pugi::xml_node p : children(q, "position")) {
                    auto it = dividerIndex.find(text(p, "divider_ref"));
                    if (it == dividerIndex.end())
                        fail(p, "divider_ref names no divider of the gate");
                    quadrant.locations[it->second] = number(p, "location");
                }
                for (double l : quadrant.locations)
                    if (std::isnan(l)) fail(q, "needs a position on every divider");
                g.quadrants.push_back(std::move(quadrant));
            }
        } else if (is(n, "BooleanGate")) {
            g.kind = GateNode::Kind::Boolean;
            pugi::xml_node op;
            if ((op = child(n, "and")))
                g.operation = GateNode::Operation::And;
            else if ((op = child(n, "or")))
                g.operation = GateNode::Operation::Or;
            else if ((op = child(n, "not")))
                g.operation = GateNode::Operation::Not;
            else
                fail(n, "needs <and>, <or> or <not>");
            for (pugi::xml_node r : children(op, "gateReference"))
                g.operands.push_back(
                    {text(r, "ref"), text(r, "use-as-complement", false) == "true"});
        } else {
            fail(n,
                 "is not a Gating-ML 2.0 gate (RectangleGate, PolygonGate, EllipsoidGate, "
                 "QuadrantGate, BooleanGate)");
        }
        return g;
    }

    std::map<std::string, GateScale> m_scales;
    std::map<std::string, RatioDimension> m_ratios;
};

}  // namespace

GateTree parseGatingMl(const std::string& text, const std::string& source) {
    pugi::xml_document doc;
    xml::parseDocument(doc, text, source);
    return GatingMlReader(source).read(doc);
}

GateTree readGatingMl(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open the Gating-ML file " + path + ": check the path");
    std::ostringstream text;
    text << in.rdbuf();
    return parseGatingMl(text.str(), path);
}

}  // namespace sepal
