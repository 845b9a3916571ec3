#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <pugixml.hpp>
#include <set>
#include <sstream>

#include "core/common/error.h"
#include "core/common/number_text.h"
#include "core/gate/gating_ml.h"
#include "core/gate/xml_nodes.h"
#include "core/io/atomic_file.h"

namespace sepal {

namespace {

/// `id` as an xs:ID, the type of Gating-ML's ids (an NCName): characters other than letters,
/// digits, '.', '-' and '_' become '_' (UTF-8's bytes of other scripts stay), and an id that
/// does not start with a letter or '_' is led by '_'.
std::string ncName(const std::string& id) {
    std::string out;
    for (unsigned char c : id)
        out += std::isalnum(c) || c == '.' || c == '-' || c == '_' || c >= 0x80 ? char(c) : '_';
    if (out.empty() || !(std::isalpha(static_cast<unsigned char>(out[0])) || out[0] == '_' ||
                         static_cast<unsigned char>(out[0]) >= 0x80))
        out.insert(out.begin(), '_');
    return out;
}

class Writer {
  public:
    // Every id is chosen before anything is written, the tree's in its order, so that the ids
    // generated for transformations later take what is left.
    explicit Writer(const GateTree& tree) : m_tree(tree) {
        for (const SpectrumMatrix& m : tree.matrices) idOf('m', m.id);
        for (const GateNode& g : tree.gates) {
            idOf('g', g.id);
            for (const Quadrant& q : g.quadrants) idOf('g', q.id);
            for (const QuadrantDivider& d : g.dividers) idOf('d', d.id);
        }
    }

    std::string write() {
        pugi::xml_document doc;
        pugi::xml_node root = xml::startDocument(doc, "gating:Gating-ML");
        m_root = root;
        for (const SpectrumMatrix& m : m_tree.matrices) writeMatrix(m);
        for (const GateNode& g : m_tree.gates) writeGate(g);
        std::ostringstream out;
        doc.save(out, "    ", pugi::format_default, pugi::encoding_utf8);
        return out.str();
    }

  private:
    // A new id made of `wanted` (ncName), numbered when another element has it.
    std::string fresh(const std::string& wanted) {
        const std::string base = ncName(wanted);
        std::string id = base;
        for (int k = 2; !m_written.insert(id).second; ++k) id = base + "_" + std::to_string(k);
        return id;
    }

    // The written id of the tree's `id`; kind: 'g' gates and quadrants (one namespace, which
    // boolean references name), 'd' dividers, 'm' matrices.
    const std::string& idOf(char kind, const std::string& id) {
        const std::string key = std::string(1, kind) + id;
        auto at = m_ids.find(key);
        if (at == m_ids.end()) at = m_ids.emplace(key, fresh(id)).first;
        return at->second;
    }

    // The name a gate or quadrant is read by: written beside the id when the id differs.
    void writeName(pugi::xml_node n, const std::string& name, const std::string& id) {
        const std::string& shown = name.empty() ? id : name;
        if (shown != idOf('g', id))
            n.append_child("data-type:custom_info").append_child("sepal").append_attribute("name") =
                shown.c_str();
    }

    void writeMatrix(const SpectrumMatrix& m) {
        pugi::xml_node n = m_root.append_child("transforms:spectrumMatrix");
        n.append_attribute("transforms:id") = idOf('m', m.id).c_str();
        if (m.invertedAlready) n.append_attribute("transforms:matrix-inverted-already") = "true";
        pugi::xml_node f = n.append_child("transforms:fluorochromes");
        for (const std::string& name : m.fluorochromes)
            f.append_child("data-type:fcs-dimension").append_attribute("data-type:name") =
                name.c_str();
        pugi::xml_node d = n.append_child("transforms:detectors");
        for (const std::string& name : m.detectors)
            d.append_child("data-type:fcs-dimension").append_attribute("data-type:name") =
                name.c_str();
        for (size_t r = 0; r < m.fluorochromes.size(); ++r) {
            pugi::xml_node s = n.append_child("transforms:spectrum");
            for (size_t c = 0; c < m.detectors.size(); ++c)
                s.append_child("transforms:coefficient").append_attribute("transforms:value") =
                    exactDecimal(m.coefficients[r * m.detectors.size() + c]).c_str();
        }
    }

    // The id of a transformation element for `s`, written before its first use.
    std::string scaleId(const GateScale& s) {
        for (const auto& [id, known] : m_scales)
            if (known == s) return id;
        const std::string id =
            fresh(std::string(scaleKindName(s.kind)) + "_" + std::to_string(m_scales.size() + 1));
        pugi::xml_node t =
            m_root.insert_child_before("transforms:transformation", m_root.first_child());
        t.append_attribute("transforms:id") = id.c_str();
        pugi::xml_node f =
            t.append_child((std::string("transforms:") + scaleKindName(s.kind)).c_str());
        auto put = [&](const char* name, double v) {
            f.append_attribute((std::string("transforms:") + name).c_str()) =
                exactDecimal(v).c_str();
        };
        for (const auto& [name, value] : scaleParameters(s)) put(name, value);
        m_scales.emplace_back(id, s);
        return id;
    }

    std::string ratioId(const RatioDimension& r) {
        for (const auto& [id, known] : m_ratios)
            if (known == r) return id;
        const std::string id =
            fresh(r.id.empty() ? "ratio_" + std::to_string(m_ratios.size() + 1) : r.id);
        pugi::xml_node t =
            m_root.insert_child_before("transforms:transformation", m_root.first_child());
        t.append_attribute("transforms:id") = id.c_str();
        pugi::xml_node f = t.append_child("transforms:fratio");
        f.append_attribute("transforms:A") = exactDecimal(r.A).c_str();
        f.append_attribute("transforms:B") = exactDecimal(r.B).c_str();
        f.append_attribute("transforms:C") = exactDecimal(r.C).c_str();
        f.append_child("data-type:fcs-dimension").append_attribute("data-type:name") =
            r.numerator.c_str();
        f.append_child("data-type:fcs-dimension").append_attribute("data-type:name") =
            r.denominator.c_str();
        m_ratios.emplace_back(id, r);
        return id;
    }

    // A biex dimension is written in data units; only bounds and cut points can be.
    GateDimension portable(GateDimension d, const GateNode& g, bool boundsOnly) {
        if (d.scale.kind != GateScale::Kind::Biex) return d;
        if (!boundsOnly)
            throw InputError("the gate \"" + (g.name.empty() ? g.id : g.name) +
                             "\" is drawn on FlowJo's biex scale, which Gating-ML 2.0 cannot "
                             "express; export it as a FlowJo workspace (.wsp) instead");
        const ScaleFunction f(d.scale);
        if (d.min) d.min = f.inverse(*d.min);
        if (d.max) d.max = f.inverse(*d.max);
        d.scale = GateScale{};
        return d;
    }

    void writeDimension(pugi::xml_node n, const GateDimension& d) {
        const std::string comp = d.compensation.kind == CompensationRef::Kind::File ? "FCS"
                                 : d.compensation.kind == CompensationRef::Kind::Matrix
                                     ? idOf('m', d.compensation.matrix)
                                     : "uncompensated";
        n.append_attribute("gating:compensation-ref") = comp.c_str();
        if (d.scale.kind != GateScale::Kind::None)
            n.append_attribute("gating:transformation-ref") = scaleId(d.scale).c_str();
        if (d.min) n.append_attribute("gating:min") = exactDecimal(*d.min).c_str();
        if (d.max) n.append_attribute("gating:max") = exactDecimal(*d.max).c_str();
        if (d.ratio) {
            const std::string id = ratioId(*d.ratio);
            n.append_child("data-type:new-dimension")
                .append_attribute("data-type:transformation-ref") = id.c_str();
        } else {
            n.append_child("data-type:fcs-dimension").append_attribute("data-type:name") =
                d.channel.c_str();
        }
    }

    void coordinates(pugi::xml_node n, const double* values, size_t count) {
        for (size_t i = 0; i < count; ++i)
            n.append_child("gating:coordinate").append_attribute("data-type:value") =
                exactDecimal(values[i]).c_str();
    }

    void writeGate(const GateNode& g) {
        static const std::map<GateNode::Kind, const char*> element = {
            {GateNode::Kind::Rectangle, "gating:RectangleGate"},
            {GateNode::Kind::Polygon, "gating:PolygonGate"},
            {GateNode::Kind::Ellipsoid, "gating:EllipsoidGate"},
            {GateNode::Kind::Quadrant, "gating:QuadrantGate"},
            {GateNode::Kind::Boolean, "gating:BooleanGate"}};
        pugi::xml_node n = m_root.append_child(element.at(g.kind));
        n.append_attribute("gating:id") = idOf('g', g.id).c_str();
        if (!g.parent.empty()) n.append_attribute("gating:parent_id") = idOf('g', g.parent).c_str();
        writeName(n, g.name, g.id);
        const bool boundsOnly = g.kind == GateNode::Kind::Rectangle;
        if (g.kind != GateNode::Kind::Quadrant)
            for (const GateDimension& d : g.dimensions)
                writeDimension(n.append_child("gating:dimension"), portable(d, g, boundsOnly));
        switch (g.kind) {
            case GateNode::Kind::Rectangle:
                break;
            case GateNode::Kind::Polygon:
                for (size_t v = 0; v + 1 < g.vertices.size(); v += 2)
                    coordinates(n.append_child("gating:vertex"), &g.vertices[v], 2);
                break;
            case GateNode::Kind::Ellipsoid: {
                coordinates(n.append_child("gating:mean"), g.mean.data(), g.mean.size());
                pugi::xml_node cov = n.append_child("gating:covarianceMatrix");
                const size_t k = g.mean.size();
                for (size_t r = 0; r < k; ++r) {
                    pugi::xml_node row = cov.append_child("gating:row");
                    for (size_t c = 0; c < k; ++c)
                        row.append_child("gating:entry").append_attribute("data-type:value") =
                            exactDecimal(g.covariance[r * k + c]).c_str();
                }
                n.append_child("gating:distanceSquare").append_attribute("data-type:value") =
                    exactDecimal(g.distanceSquare).c_str();
                break;
            }
            case GateNode::Kind::Quadrant: {
                std::vector<QuadrantDivider> dividers = g.dividers;
                for (QuadrantDivider& div : dividers) {
                    // Cut points on biex in data units; quadrant locations follow.
                    if (div.dimension.scale.kind == GateScale::Kind::Biex) {
                        const ScaleFunction f(div.dimension.scale);
                        for (double& v : div.values) v = f.inverse(v);
                    }
                }
                for (size_t i = 0; i < dividers.size(); ++i) {
                    pugi::xml_node d = n.append_child("gating:divider");
                    d.append_attribute("gating:id") = idOf('d', dividers[i].id).c_str();
                    GateDimension dim = portable(dividers[i].dimension, g, true);
                    writeDimension(d, dim);
                    for (double v : dividers[i].values)
                        d.append_child("gating:value").text().set(exactDecimal(v).c_str());
                }
                for (const Quadrant& q : g.quadrants) {
                    pugi::xml_node qn = n.append_child("gating:Quadrant");
                    qn.append_attribute("gating:id") = idOf('g', q.id).c_str();
                    writeName(qn, q.name, q.id);
                    for (size_t i = 0; i < dividers.size(); ++i) {
                        double location = q.locations[i];
                        if (g.dividers[i].dimension.scale.kind == GateScale::Kind::Biex)
                            location =
                                ScaleFunction(g.dividers[i].dimension.scale).inverse(location);
                        pugi::xml_node p = qn.append_child("gating:position");
                        p.append_attribute("gating:divider_ref") =
                            idOf('d', dividers[i].id).c_str();
                        p.append_attribute("gating:location") = exactDecimal(location).c_str();
                    }
                }
                break;
            }
            case GateNode::Kind::Boolean: {
                const char* op = g.operation == GateNode::Operation::And  ? "gating:and"
                                 : g.operation == GateNode::Operation::Or ? "gating:or"
                                                                          : "gating:not";
                pugi::xml_node o = n.append_child(op);
                for (const BooleanOperand& r : g.operands) {
                    pugi::xml_node ref = o.append_child("gating:gateReference");
                    ref.append_attribute("gating:ref") = idOf('g', r.ref).c_str();
                    if (r.complement) ref.append_attribute("gating:use-as-complement") = "true";
                }
                break;
            }
        }
    }

    const GateTree& m_tree;
    pugi::xml_node m_root;
    std::vector<std::pair<std::string, GateScale>> m_scales;
    std::vector<std::pair<std::string, RatioDimension>> m_ratios;
    std::map<std::string, std::string> m_ids;  // kind + the tree's id -> the id written
    std::set<std::string> m_written;           // every id written, each once
};

}  // namespace

std::string gatingMlText(const GateTree& tree) {
    tree.validate("the gates to export");
    return Writer(tree).write();
}

void writeGatingMl(const std::string& path, const GateTree& tree) {
    const std::string text = gatingMlText(tree);
    io::AtomicFile file(path);
    file.write(text);
    file.commit();
}

}  // namespace sepal
