#include "core/io/table.h"

#include <algorithm>
#include <cctype>

namespace sepal::io {

namespace {
bool equalsIgnoreCase(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}
}  // namespace

int Table::findChannel(const std::string& name) const {
    for (size_t i = 0; i < channels.size(); ++i)
        if (channels[i].name == name || channels[i].marker == name) return static_cast<int>(i);
    for (size_t i = 0; i < channels.size(); ++i)
        if (equalsIgnoreCase(channels[i].name, name) ||
            (!channels[i].marker.empty() && equalsIgnoreCase(channels[i].marker, name)))
            return static_cast<int>(i);
    return -1;
}

const std::string* Table::keyword(const std::string& key) const {
    for (const auto& [k, v] : keywords)
        if (equalsIgnoreCase(k, key)) return &v;
    return nullptr;
}

Table keepRows(const Table& table, const std::vector<uint8_t>& keep) {
    Table out;
    out.source = table.source;
    out.channels = table.channels;
    out.keywords = table.keywords;
    out.spillover = table.spillover;
    out.warnings = table.warnings;
    size_t n = 0;
    for (size_t i = 0; i < table.events() && i < keep.size(); ++i) n += keep[i] ? 1 : 0;
    const size_t d = table.values.cols;
    out.values = Matrix(n, d);
    for (const auto& l : table.labels) out.labels.push_back({l.name, l.categories, {}});
    size_t at = 0;
    for (size_t i = 0; i < table.events() && i < keep.size(); ++i) {
        if (!keep[i]) continue;
        std::copy_n(table.values.row(i), d, out.values.row(at++));
        for (size_t l = 0; l < table.labels.size(); ++l)
            out.labels[l].codes.push_back(
                i < table.labels[l].codes.size() ? table.labels[l].codes[i] : -1);
    }
    return out;
}

}  // namespace sepal::io
