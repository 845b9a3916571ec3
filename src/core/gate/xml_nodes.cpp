#include "core/gate/xml_nodes.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/common/error.h"

namespace sepal::xml {

void parseDocument(pugi::xml_document& doc, const std::string& text, const std::string& source) {
    const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
    if (!parsed)
        throw InputError(source + " is not well-formed XML at byte " +
                         std::to_string(parsed.offset) + ": " + parsed.description());
}

pugi::xml_node startDocument(pugi::xml_document& doc, const char* root) {
    pugi::xml_node decl = doc.append_child(pugi::node_declaration);
    decl.append_attribute("version") = "1.0";
    decl.append_attribute("encoding") = "UTF-8";
    pugi::xml_node n = doc.append_child(root);
    n.append_attribute("xmlns:gating") = "http://www.isac-net.org/std/Gating-ML/v2.0/gating";
    n.append_attribute("xmlns:transforms") =
        "http://www.isac-net.org/std/Gating-ML/v2.0/transformations";
    n.append_attribute("xmlns:data-type") = "http://www.isac-net.org/std/Gating-ML/v2.0/datatypes";
    return n;
}

void AttributeReader::fail(const pugi::xml_node& n, const std::string& what) const {
    throw InputError(m_source + ": <" + std::string(n.name()) + "> at byte " +
                     std::to_string(n.offset_debug()) + ": " + what);
}

std::string AttributeReader::text(const pugi::xml_node& n, const char* name, bool required) const {
    const pugi::xml_attribute a = attribute(n, name);
    if (!a && required) fail(n, std::string("needs the attribute ") + name);
    return a ? a.value() : "";
}

double AttributeReader::number(const pugi::xml_node& n, const char* name) const {
    return parse(n, text(n, name), name);
}

std::optional<double> AttributeReader::optionalNumber(const pugi::xml_node& n,
                                                      const char* name) const {
    const pugi::xml_attribute a = attribute(n, name);
    if (!a) return std::nullopt;
    return parse(n, a.value(), name);
}

double AttributeReader::parse(const pugi::xml_node& n, const std::string& s,
                              const char* name) const {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    while (end && *end && std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (s.empty() || end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        fail(n, std::string(name) + " = \"" + s + "\" is not a finite number");
    return v;
}

}  // namespace sepal::xml
