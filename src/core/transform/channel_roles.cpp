#include "core/transform/channel_roles.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace sepal {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

/// Matches an element symbol and a plausible isotope mass (75..209) at `pos`: "Nd142".
/// Returns the position after it, or npos.
size_t matchIsotope(const std::string& s, size_t pos) {
    if (pos >= s.size() || !std::isupper(static_cast<unsigned char>(s[pos])))
        return std::string::npos;
    size_t p = pos + 1;
    if (p < s.size() && std::islower(static_cast<unsigned char>(s[p]))) ++p;
    const size_t digits = p;
    while (p < s.size() && isDigit(s[p])) ++p;
    if (p - digits < 2 || p - digits > 3) return std::string::npos;
    const int mass = std::stoi(s.substr(digits, p - digits));
    return (mass >= 75 && mass <= 209) ? p : std::string::npos;
}

/// "142Nd" at the start of s, followed by the end or a separator.
bool massFirst(const std::string& s) {
    size_t p = 0;
    while (p < s.size() && isDigit(s[p])) ++p;
    if (p < 2 || p > 3) return false;
    const int mass = std::stoi(s.substr(0, p));
    if (mass < 75 || mass > 209 || p >= s.size() || !std::isupper(static_cast<unsigned char>(s[p])))
        return false;
    ++p;
    if (p < s.size() && std::islower(static_cast<unsigned char>(s[p]))) ++p;
    return p == s.size() || s[p] == '_' || s[p] == '-' || s[p] == ' ';
}

}  // namespace

bool isMassChannelName(const std::string& name) {
    const size_t whole = matchIsotope(name, 0);
    if (whole != std::string::npos) {
        const std::string rest = name.substr(whole);
        if (rest.empty() || rest == "Di" || rest == "Dd") return true;
    }
    for (size_t open = name.find('('); open != std::string::npos; open = name.find('(', open + 1)) {
        const size_t end = matchIsotope(name, open + 1);
        if (end != std::string::npos && end < name.size() && name[end] == ')') return true;
    }
    return massFirst(name);
}

Cytometry guessCytometry(const io::Table& table) {
    size_t mass = 0;
    bool scatter = false;
    for (const auto& c : table.channels) {
        if (isMassChannelName(c.name)) ++mass;
        const std::string n = lower(c.name);
        if (startsWith(n, "fsc") || startsWith(n, "ssc")) scatter = true;
    }
    if (mass >= 3 || (mass > 0 && 2 * mass >= table.channels.size())) return Cytometry::Mass;
    if (const std::string* cyt = table.keyword("$CYT")) {
        const std::string c = lower(*cyt);
        if (c.find("cytof") != std::string::npos || c.find("helios") != std::string::npos ||
            c.find("xt") == 0)
            return Cytometry::Mass;
    }
    if (scatter) return Cytometry::Fluorescence;
    // Mass cytometry counts ions: many exact zeros; fluorescence values rarely hit zero.
    size_t zeros = 0, total = 0;
    const size_t rows = std::min<size_t>(table.events(), 20000);
    for (size_t i = 0; i < rows; ++i)
        for (size_t j = 0; j < table.channels.size(); ++j) {
            const float v = table.values.at(i, j);
            if (!std::isfinite(v)) continue;
            ++total;
            if (v == 0) ++zeros;
        }
    return (total > 0 && zeros * 5 >= total) ? Cytometry::Mass : Cytometry::Fluorescence;
}

bool isTechnicalChannel(const io::Table& table, size_t index) {
    const io::Channel& channel = table.channels[index];
    const std::string n = lower(channel.name);
    const std::string m = lower(channel.marker);
    static const char* const kNamePrefixes[] = {
        "fsc",      "ssc",      "time",     "event",  "cell_length", "center",     "offset",
        "width",    "residual", "beaddist", "sample", "population",  "cluster",    "label",
        "embedsom", "umap",     "tsne",     "t-sne",  "barcode",     "original_id"};
    for (const char* prefix : kNamePrefixes)
        if (startsWith(n, prefix)) return true;
    static const char* const kMarkerPrefixes[] = {"dna", "barcode", "bead", "time", "event"};
    for (const char* prefix : kMarkerPrefixes)
        if (startsWith(m, prefix)) return true;
    if (m.size() >= 3 && startsWith(m, "bc") && isDigit(m[2])) return true;
    // DNA intercalator (iridium) and palladium barcode channels of mass cytometry.
    if (startsWith(n, "ir191") || startsWith(n, "ir193")) return true;
    const bool unnamed = m.empty() || m == n;
    if (startsWith(n, "pd1") && unnamed) return true;
    // In mass cytometry panels only used channels carry a marker name ($PnS).
    if (unnamed && isMassChannelName(channel.name)) {
        size_t withMarker = 0;
        for (const auto& c : table.channels)
            if (!c.marker.empty() && lower(c.marker) != lower(c.name)) ++withMarker;
        if (withMarker >= 3) return true;
    }
    // Height and width twins of an area channel ("FL1-H" beside "FL1-A").
    if (n.size() > 2 && n[n.size() - 2] == '-' && (n.back() == 'h' || n.back() == 'w')) {
        std::string area = channel.name.substr(0, channel.name.size() - 1) + "A";
        for (const auto& c : table.channels)
            if (lower(c.name) == lower(area)) return true;
    }
    return false;
}

}  // namespace sepal
