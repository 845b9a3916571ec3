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

}  // namespace sepal::io
