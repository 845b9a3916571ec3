#include "core/markers/marker_classes.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/transform/channel_roles.h"

namespace sepal {

namespace {

// A user-written field: blanks and the quotes of a CSV field left out.
constexpr const char* kFieldBlanks = " \t\r\"";

// The channels an override names: by channel name or marker exactly, else ignoring case.
std::vector<size_t> overrideChannels(const io::Table& table, const std::string& word) {
    std::vector<size_t> named;
    for (int pass = 0; pass < 2 && named.empty(); ++pass)
        for (size_t c = 0; c < table.channels.size(); ++c) {
            const io::Channel& ch = table.channels[c];
            if (pass == 0 ? (ch.name == word || ch.marker == word)
                          : (lowercase(ch.name) == lowercase(word) ||
                             lowercase(ch.marker) == lowercase(word)))
                named.push_back(c);
        }
    return named;
}

}  // namespace

const char* markerClassKey(MarkerClass c) {
    switch (c) {
        case MarkerClass::Type:
            return "type";
        case MarkerClass::State:
            return "state";
        case MarkerClass::None:
            return "none";
    }
    return "none";
}

std::optional<MarkerClass> markerClassNamed(const std::string& word) {
    const std::string w = lowercase(trimmed(word, kFieldBlanks));
    if (w == "type") return MarkerClass::Type;
    if (w == "state") return MarkerClass::State;
    if (w == "none") return MarkerClass::None;
    return std::nullopt;
}

std::string markerOf(const io::Channel& channel) {
    return hasOwnMarker(channel) ? channel.marker : channel.name;
}

std::vector<MarkerClass> defaultMarkerClasses(const io::Table& table) {
    const std::vector<ChannelRole> roles = channelRoles(table);
    std::vector<MarkerClass> classes(table.channels.size(), MarkerClass::None);
    for (size_t c = 0; c < classes.size(); ++c) {
        if (roles[c] != ChannelRole::Marker) continue;
        const auto entry = catalogueEntry(markerOf(table.channels[c]));
        classes[c] = entry ? entry->markerClass : MarkerClass::Type;
    }
    return classes;
}

MarkerClassOverrides readMarkerClasses(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open the marker classes file");
    MarkerClassOverrides out;
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
        if (trimmed(line, kFieldBlanks).empty() || trimmed(line, kFieldBlanks)[0] == '#') continue;
        const size_t comma = line.rfind(',');
        if (comma == std::string::npos)
            throw InputError(path + ":" + std::to_string(number) +
                             ": expected 'channel,class' (class type, state or none), read '" +
                             line + "'");
        const std::string channel = trimmed(line.substr(0, comma), kFieldBlanks);
        const std::string word = trimmed(line.substr(comma + 1), kFieldBlanks);
        const auto cls = markerClassNamed(word);
        if (!cls) {
            if (number == 1 && lowercase(word) == "class") continue;  // the header
            throw InputError(path + ":" + std::to_string(number) + ": the class of '" + channel +
                             "' is '" + word + "'; use type, state or none");
        }
        if (channel.empty())
            throw InputError(path + ":" + std::to_string(number) + ": no channel before the comma");
        out[channel] = *cls;
    }
    return out;
}

std::vector<MarkerClass> markerClasses(const io::Table& table,
                                       const MarkerClassOverrides& overrides,
                                       const std::string& context) {
    std::vector<MarkerClass> classes = defaultMarkerClasses(table);
    for (const auto& [word, cls] : overrides) {
        const std::vector<size_t> named = overrideChannels(table, word);
        if (named.empty())
            throw InputError(context + ": '" + word + "' is no channel or marker of " +
                             table.source);
        for (size_t c : named) classes[c] = cls;
    }
    return classes;
}

MarkerClassOverrides overridesOf(const io::Table& table, const MarkerClassOverrides& overrides) {
    MarkerClassOverrides mine;
    for (const auto& [word, cls] : overrides)
        if (!overrideChannels(table, word).empty()) mine[word] = cls;
    return mine;
}

std::vector<MarkerClass> columnClasses(const io::Table& table,
                                       const std::vector<std::string>& columns,
                                       const MarkerClassOverrides& overrides) {
    const std::vector<MarkerClass> classes = markerClasses(table, overrides);
    std::vector<MarkerClass> out;
    for (const std::string& column : columns) {
        const int c = table.findChannel(column);
        out.push_back(c < 0 ? MarkerClass::None : classes[size_t(c)]);
    }
    return out;
}

}  // namespace sepal
