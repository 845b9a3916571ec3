#include "core/transform/channel_roles.h"

#include <unordered_set>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/common/text.h"

namespace sepal {

namespace {

bool startsWith(const std::string& s, const std::string& prefix) {
    return s.rfind(prefix, 0) == 0;
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

/// Beckman Coulter's scatter channels, "FS" and "SS" as words: "FS INT LIN", "SS Lin" (never
/// "FSH", "SSEA-4" or the SS-A antigen). `n` is lower case.
bool isCoulterScatter(const std::string& n) {
    return (startsWith(n, "fs") || startsWith(n, "ss")) && (n.size() == 2 || n[2] == ' ');
}

/// Matches an element symbol and a plausible isotope mass (75..209) at `pos`: "Nd142".
/// Returns the position after it, or npos.
size_t matchIsotope(const std::string& s, size_t pos, Isotope* found) {
    if (pos >= s.size() || !std::isupper(static_cast<unsigned char>(s[pos])))
        return std::string::npos;
    size_t p = pos + 1;
    if (p < s.size() && std::islower(static_cast<unsigned char>(s[p]))) ++p;
    const size_t digits = p;
    while (p < s.size() && isDigit(s[p])) ++p;
    if (p - digits < 2 || p - digits > 3) return std::string::npos;
    const int mass = std::stoi(s.substr(digits, p - digits));
    if (mass < 75 || mass > 209) return std::string::npos;
    *found = Isotope{s.substr(pos, digits - pos), mass};
    return p;
}

/// "142Nd" at the start of s, followed by the end or a separator.
std::optional<Isotope> massFirst(const std::string& s) {
    size_t p = 0;
    while (p < s.size() && isDigit(s[p])) ++p;
    if (p < 2 || p > 3) return std::nullopt;
    const int mass = std::stoi(s.substr(0, p));
    if (mass < 75 || mass > 209 || p >= s.size() || !std::isupper(static_cast<unsigned char>(s[p])))
        return std::nullopt;
    const size_t element = p++;
    if (p < s.size() && std::islower(static_cast<unsigned char>(s[p]))) ++p;
    if (p != s.size() && s[p] != '_' && s[p] != '-' && s[p] != ' ') return std::nullopt;
    return Isotope{s.substr(element, p - element), mass};
}

}  // namespace

std::optional<Isotope> isotopeOf(const std::string& name) {
    Isotope found;
    const size_t whole = matchIsotope(name, 0, &found);
    if (whole != std::string::npos) {
        const std::string rest = name.substr(whole);
        if (rest.empty() || rest == "Di" || rest == "Dd") return found;
    }
    for (size_t open = name.find('('); open != std::string::npos; open = name.find('(', open + 1)) {
        const size_t end = matchIsotope(name, open + 1, &found);
        if (end != std::string::npos && end < name.size() && name[end] == ')') return found;
    }
    return massFirst(name);
}

bool isMassChannelName(const std::string& name) {
    return isotopeOf(name).has_value();
}

Cytometry guessCytometry(const io::Table& table) {
    size_t mass = 0;
    bool scatter = false;
    for (const auto& c : table.channels) {
        if (isMassChannelName(c.name)) ++mass;
        const std::string n = lowercase(c.name);
        if (startsWith(n, "fsc") || startsWith(n, "ssc") || isCoulterScatter(n)) scatter = true;
    }
    if (mass >= 3 || (mass > 0 && 2 * mass >= table.channels.size())) return Cytometry::Mass;
    if (const std::string* cyt = table.keyword("$CYT")) {
        const std::string c = lowercase(*cyt);
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

namespace {

/// Lower-case letters and digits only: "Live/Dead" -> "livedead", "(Pd105)Di" -> "pd105di".
std::string folded(const std::string& s) {
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool contains(const std::string& s, const char* part) {
    return s.find(part) != std::string::npos;
}

bool isIsotope(const std::optional<Isotope>& iso, const char* element, int mass) {
    return iso && iso->element == element && iso->mass == mass;
}

/// An empty marker, or one that only repeats the isotope ("Pd105Di", "105Pd", "Pd105"): the
/// instrument's placeholder for a channel without an antibody.
bool markerIsPlaceholder(const io::Channel& channel, const std::optional<Isotope>& iso) {
    const std::string m = folded(channel.marker);
    if (m.empty() || m == folded(channel.name)) return true;
    if (!iso) return false;
    std::string element = lowercase(iso->element), mass = std::to_string(iso->mass);
    for (const std::string& form : {element + mass, mass + element, element + mass + "di",
                                    element + mass + "dd", mass + element + "di"})
        if (m == form) return true;
    return false;
}

bool isDnaMarker(const std::string& m, const std::optional<Isotope>& markerIso) {
    if (isIsotope(markerIso, "Ir", 191) || isIsotope(markerIso, "Ir", 193)) return true;
    const std::string f = folded(m);
    // "DNA", "DNA1", "DNA_2", "DNA-Ir191", but not "DNAM-1" (CD226, a real marker).
    if (startsWith(f, "dna")) {
        const std::string rest = f.substr(3);
        if (contains(rest, "ir") ||
            std::all_of(rest.begin(), rest.end(), [](char c) { return isDigit(c); }))
            return true;
    }
    // Flow cytometry's DNA stains of every cell: SYTO dyes, Hoechst, DRAQ5, Vybrant DyeCycle
    // (SYTOX and DRAQ7 stain only dead cells: viability dyes).
    if ((startsWith(f, "syto") && !startsWith(f, "sytox")) || contains(f, "hoechst") ||
        (startsWith(f, "draq") && !startsWith(f, "draq7")) || contains(f, "dyecycle"))
        return true;
    return f == "191" || f == "193" || contains(f, "intercalator") || contains(f, "iridium");
}

/// A live/dead stain's name in a marker or channel name.
bool isViabilityWord(const std::string& text) {
    const std::string f = folded(text);
    // ViViD is LIVE/DEAD's violet dye; FVS and FVD are BD's and eBioscience's fixable dyes.
    return contains(f, "cisplatin") || contains(f, "viab") || contains(f, "zombie") ||
           contains(f, "livedead") || contains(f, "7aad") || contains(f, "dapi") ||
           (contains(f, "dead") && !contains(f, "deadbox")) || contains(f, "propidium") ||
           f == "pi" || startsWith(f, "sytox") || startsWith(f, "draq7") || contains(f, "vivid") ||
           startsWith(f, "fvs") || startsWith(f, "fvd");
}

/// A dump channel: cells to gate out before the analysis, dead ones and unwanted lineages in one
/// colour ("Dump", "VIVID / CD14", "CD14/CD19/Live-Dead").
bool isDumpMarker(const std::string& text) {
    const std::string l = lowercase(text);
    if (contains(folded(text), "dump")) return true;
    bool lineage = false;
    for (size_t at = l.find("cd"); at != std::string::npos && !lineage; at = l.find("cd", at + 1))
        lineage = at + 2 < l.size() && isDigit(l[at + 2]);
    return lineage && isViabilityWord(text);
}

bool isBarcodeMarker(const std::string& m) {
    const std::string l = lowercase(m);
    if (startsWith(folded(m), "barcode")) return true;
    // "BC1", "BC_102Pd", "bc-3", "BC": a barcode well, never "BCL2" or "BCR".
    return startsWith(l, "bc") &&
           (l.size() == 2 || isDigit(l[2]) || l[2] == '_' || l[2] == '-' || l[2] == ' ');
}

/// Palladium isotopes used for sample barcoding (102, 104, 105, 106, 108, 110).
bool isPalladiumBarcode(const std::optional<Isotope>& iso) {
    return iso && iso->element == "Pd" && iso->mass >= 102 && iso->mass <= 110;
}

/// Channels carrying a real marker, not an empty or isotope-only placeholder.
size_t labelledChannels(const io::Table& table) {
    size_t n = 0;
    for (const auto& c : table.channels)
        if (hasOwnMarker(c)) ++n;
    return n;
}

ChannelRole roleByName(const std::string& n, const std::string& m) {
    static const char* const kEmbedding[] = {"embed", "umap", "tsne", "t-sne"};
    for (const char* prefix : kEmbedding)
        if (startsWith(n, prefix)) return ChannelRole::Embedding;
    if (m == "embedsom") return ChannelRole::Embedding;
    static const char* const kCodes[] = {"sample", "population", "cluster", "label", "original_id"};
    for (const char* prefix : kCodes)
        if (startsWith(n, prefix)) return ChannelRole::Code;
    if (startsWith(n, "time") || startsWith(m, "time")) return ChannelRole::Time;
    // A MACSQuant's time is HDR-T; its other HDR- channels count events and sample volume.
    if (n == "hdr-t" || m == "hdr-t") return ChannelRole::Time;
    if (startsWith(n, "hdr-") || startsWith(m, "hdr-")) return ChannelRole::Counter;
    if (startsWith(n, "cell_length") || startsWith(m, "cell_length"))
        return ChannelRole::EventLength;
    if (startsWith(n, "event") || startsWith(m, "event"))
        return contains(n + m, "length") ? ChannelRole::EventLength : ChannelRole::Code;
    static const char* const kGaussian[] = {"center", "offset", "width", "residual"};
    for (const char* prefix : kGaussian)
        if (startsWith(n, prefix)) return ChannelRole::Gaussian;
    if (startsWith(n, "fsc") || startsWith(n, "ssc") || isCoulterScatter(n))
        return ChannelRole::Scatter;
    if (startsWith(n, "beaddist") || contains(m, "bead")) return ChannelRole::Beads;
    // A CyFlow's DOUBLET: its pulse-shape signal for telling doublets from single cells.
    if (startsWith(n, "doublet") || startsWith(m, "doublet")) return ChannelRole::Doublets;
    if (startsWith(n, "barcode")) return ChannelRole::Barcode;
    return ChannelRole::Marker;
}

}  // namespace

namespace {

// What a role looks up across the whole table, computed once per table so that the roles of
// every column cost O(columns), not O(columns^2) (a CSV may have tens of thousands).
struct TableFacts {
    std::unordered_set<std::string> lowerNames;  // every channel's name, lower case
    size_t labelled = 0;                         // labelledChannels(table)
    bool scatter = false;                        // a flow cytometer's: a scatter channel
};

TableFacts factsOf(const io::Table& table) {
    TableFacts f;
    for (const auto& c : table.channels) {
        f.lowerNames.insert(lowercase(c.name));
        f.scatter = f.scatter || roleByName(lowercase(c.name), "") == ChannelRole::Scatter;
    }
    f.labelled = labelledChannels(table);
    return f;
}

ChannelRole roleWith(const io::Table& table, size_t index, const TableFacts& facts) {
    const io::Channel& channel = table.channels[index];
    const std::string n = lowercase(channel.name);
    const std::string m = lowercase(channel.marker);
    const ChannelRole byName = roleByName(n, m);
    // Beside scatter, "Width" is a flow cytometer's pulse width, which tells doublets from single
    // cells, not a Helios' Gaussian parameter.
    if (byName == ChannelRole::Gaussian && n == "width" && facts.scatter)
        return ChannelRole::Doublets;
    if (byName != ChannelRole::Marker) return byName;

    const std::optional<Isotope> iso = isotopeOf(channel.name);
    const bool placeholder = markerIsPlaceholder(channel, iso);
    if (isIsotope(iso, "Ir", 191) || isIsotope(iso, "Ir", 193) ||
        isDnaMarker(channel.marker, isotopeOf(channel.marker)))
        return ChannelRole::Dna;
    const bool platinum = iso && iso->element == "Pt" && iso->mass >= 194 && iso->mass <= 196;
    if (isDumpMarker(channel.marker)) return ChannelRole::Dump;
    if (isViabilityWord(channel.marker) || isViabilityWord(channel.name) || folded(m) == "ld" ||
        (platinum && placeholder))
        return ChannelRole::Viability;
    if (isBarcodeMarker(channel.marker) || (isPalladiumBarcode(iso) && placeholder))
        return ChannelRole::Barcode;
    // Height and width twins of an area channel ("FL1-H" beside "FL1-A").
    if (n.size() > 2 && n[n.size() - 2] == '-' && (n.back() == 'h' || n.back() == 'w')) {
        const std::string area = n.substr(0, n.size() - 1) + "a";
        if (facts.lowerNames.count(area)) return ChannelRole::Twin;
    }
    // A Beckman Coulter's detector through both amplifiers ("FL1 Lin" beside "FL1 Log"): the log
    // channel spans the decades (its $PnE decoded), the linear one saturates bright cells and
    // crowds dim ones into its first channels; embedding both would count the detector twice.
    if (n.size() > 4 && endsWith(n, " lin") &&
        facts.lowerNames.count(n.substr(0, n.size() - 3) + "log"))
        return ChannelRole::LinearTwin;
    // In mass cytometry panels only used channels carry a marker name ($PnS).
    if (iso && placeholder && facts.labelled >= 3) return ChannelRole::Unlabelled;
    return ChannelRole::Marker;
}

}  // namespace

ChannelRole channelRole(const io::Table& table, size_t index) {
    return roleWith(table, index, factsOf(table));
}

std::vector<ChannelRole> channelRoles(const io::Table& table) {
    const TableFacts facts = factsOf(table);
    std::vector<ChannelRole> roles;
    for (size_t i = 0; i < table.channels.size(); ++i) roles.push_back(roleWith(table, i, facts));
    return roles;
}

namespace {

struct RoleNames {
    ChannelRole role;
    const char* key;
    const char* reason;
};

constexpr RoleNames kRoleNames[] = {
    {ChannelRole::Marker, "marker", "marker"},
    {ChannelRole::Scatter, "scatter", "scatter"},
    {ChannelRole::Time, "time", "time"},
    {ChannelRole::EventLength, "event_length", "event length"},
    {ChannelRole::Gaussian, "gaussian", "Gaussian parameter"},
    {ChannelRole::Barcode, "barcode", "barcode"},
    {ChannelRole::Dna, "dna", "DNA intercalator"},
    {ChannelRole::Viability, "viability", "viability"},
    {ChannelRole::Dump, "dump", "dump channel (dead cells and excluded lineages)"},
    {ChannelRole::Beads, "beads", "normalisation beads"},
    {ChannelRole::Code, "code", "code column"},
    {ChannelRole::Embedding, "embedding", "embedding output"},
    {ChannelRole::Twin, "twin", "height/width twin"},
    {ChannelRole::Unlabelled, "unlabelled", "isotope without a marker"},
    {ChannelRole::Counter, "counter", "instrument counter"},
    {ChannelRole::Doublets, "doublet", "doublet discrimination"},
    {ChannelRole::LinearTwin, "linear_twin", "linear twin of a log channel"},
};

const RoleNames& namesOf(ChannelRole role) {
    for (const RoleNames& names : kRoleNames)
        if (names.role == role) return names;
    return kRoleNames[0];
}

}  // namespace

const char* roleKey(ChannelRole role) {
    return namesOf(role).key;
}

std::string roleLabel(ChannelRole role) {
    std::string words = namesOf(role).key;
    std::replace(words.begin(), words.end(), '_', ' ');
    return words;
}

const char* roleReason(ChannelRole role) {
    return namesOf(role).reason;
}

bool hasOwnMarker(const io::Channel& channel) {
    return !markerIsPlaceholder(channel, isotopeOf(channel.name));
}

bool linearByDefault(ChannelRole role) {
    return role == ChannelRole::Scatter || role == ChannelRole::Time ||
           role == ChannelRole::EventLength || role == ChannelRole::Gaussian ||
           role == ChannelRole::Counter || role == ChannelRole::Doublets ||
           role == ChannelRole::LinearTwin;
}

bool isTechnicalChannel(const io::Table& table, size_t index) {
    return channelRole(table, index) != ChannelRole::Marker;
}

}  // namespace sepal
