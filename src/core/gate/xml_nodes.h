#pragma once
// Reading XML elements and attributes by their local names (what follows the prefix): Gating-ML
// files and FlowJo workspaces choose their own namespace prefixes.

#include <cstring>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <vector>

namespace sepal::xml {

/// `name` without its namespace prefix.
inline const char* localName(const char* name) {
    const char* colon = std::strrchr(name, ':');
    return colon ? colon + 1 : name;
}

/// True when the element's local name is `name`.
inline bool is(const pugi::xml_node& node, const char* name) {
    return std::strcmp(localName(node.name()), name) == 0;
}

/// The attribute whose local name is `name` (empty when absent).
inline pugi::xml_attribute attribute(const pugi::xml_node& node, const char* name) {
    for (pugi::xml_attribute a : node.attributes())
        if (std::strcmp(localName(a.name()), name) == 0) return a;
    return {};
}

/// The first child element whose local name is `name` (empty when absent).
inline pugi::xml_node child(const pugi::xml_node& node, const char* name) {
    for (pugi::xml_node c : node.children())
        if (is(c, name)) return c;
    return {};
}

/// Every child element whose local name is `name`, in order.
inline std::vector<pugi::xml_node> children(const pugi::xml_node& node, const char* name) {
    std::vector<pugi::xml_node> out;
    for (pugi::xml_node c : node.children())
        if (is(c, name)) out.push_back(c);
    return out;
}

/// Parses `text` into `doc`; throws InputError naming `source` and the byte where it is not
/// well-formed XML.
void parseDocument(pugi::xml_document& doc, const std::string& text, const std::string& source);

/// Starts a document: the XML declaration and the root element `root`, declaring Gating-ML
/// 2.0's three namespaces under the prefixes gating, transforms and data-type.
pugi::xml_node startDocument(pugi::xml_document& doc, const char* root);

/// Reads attributes, with errors that name the file, the element and its byte offset.
class AttributeReader {
  public:
    /// `source` names the file in errors.
    explicit AttributeReader(std::string source) : m_source(std::move(source)) {}
    /// Throws InputError: "<source>: <element> at byte N: <what>".
    [[noreturn]] void fail(const pugi::xml_node& node, const std::string& what) const;
    /// The attribute's text; throws when it is absent and `required`, else "".
    std::string text(const pugi::xml_node& node, const char* name, bool required = true) const;
    /// The attribute as a finite number; throws when it is absent or no number.
    double number(const pugi::xml_node& node, const char* name) const;
    /// The attribute as a finite number, or nothing when absent; throws when it is no number.
    std::optional<double> optionalNumber(const pugi::xml_node& node, const char* name) const;
    /// `text` as a finite number; throws naming `name` when it is not one.
    double parse(const pugi::xml_node& node, const std::string& text, const char* name) const;
    /// The file's name.
    const std::string& source() const { return m_source; }

  private:
    std::string m_source;
};

}  // namespace sepal::xml
