#include "core/io/channel_headers.h"

#include <cctype>
#include <optional>
#include <regex>
#include <unordered_set>
#include <utility>
#include <vector>

namespace sepal::io {

namespace {

std::string trimmed(const std::string& text) {
    size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    return text.substr(b, e - b);
}

// A cytometer's channel name, by the forms instruments write: a metal isotope ("In115Di",
// "(Sm154)Di", "142Nd"), a detector's area, height or width ("FITC-A", "BL 530/30-A",
// "Comp-PE-Texas Red-A"), a numbered fluorescence or a scatter channel ("FL1 INT LOG", "FSC-H",
// "SSC"), a filter ("488/552nm PECy5.5 (710/40) LogH"), a log or linear amplifier's ("FL3 Log"),
// or the time. Units and notes in brackets ("m2", "kg", "A-1", "2019") are none of these.
bool readsAsChannel(const std::string& word) {
    static const std::regex forms(
        R"(\(?[A-Z][a-z]?\)?\(?[0-9]{2,3}\)?(Di|Dd)?|[0-9]{2,3}[A-Z][a-z]?(Di|Dd)?)"
        R"(|.+-[AHW]|FL[0-9]+.*|(FSC|SSC|FS|SS).*|Time|TIME|time)"
        R"(|.*[0-9]{3}/[0-9]{2}.*|.* (Log|Lin)[AHW]?)");
    return !word.empty() && std::regex_match(word, forms);
}

// The channel and marker a header names, or nothing when it names one thing.
std::optional<std::pair<std::string, std::string>> channelAndMarker(const std::string& header) {
    const std::string h = trimmed(header);
    if (const size_t at = h.find(" ::"); at != std::string::npos) {
        // FlowJo's "Comp-FITC-A :: CD3"; "Comp-FITC-A :: " for a channel without a marker.
        std::string channel = trimmed(h.substr(0, at)), marker = trimmed(h.substr(at + 3));
        if (readsAsChannel(channel)) return std::make_pair(std::move(channel), std::move(marker));
        return std::nullopt;
    }
    // The bracket that the last one closes: a channel may hold brackets of its own
    // ("xx (488/552nm PECy5.5 (710/40) LogH)").
    if (h.empty() || h.back() != ')') return std::nullopt;
    size_t open = std::string::npos;
    for (size_t i = h.size(), depth = 0; i-- > 0;) {
        if (h[i] == ')') ++depth;
        if (h[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    if (open == std::string::npos || open < 2 || h[open - 1] != ' ') return std::nullopt;
    --open;  // at the space before the bracket
    std::string channel = h.substr(open + 2, h.size() - open - 3);
    std::string marker = trimmed(h.substr(0, open));
    if (readsAsChannel(channel) && !marker.empty())
        return std::make_pair(std::move(channel), std::move(marker));
    return std::nullopt;
}

}  // namespace

void splitChannelHeaders(Table& table) {
    std::vector<Channel> split = table.channels;
    bool any = false;
    for (Channel& c : split) {
        if (!c.marker.empty()) continue;
        if (auto parts = channelAndMarker(c.name)) {
            c.name = std::move(parts->first);
            c.marker = std::move(parts->second);
            any = true;
        }
    }
    if (!any) return;
    // Columns are found by name: two of one name would make a column unreachable.
    std::unordered_set<std::string> names;
    for (const Channel& c : split)
        if (!names.insert(c.name).second) return;
    table.channels = std::move(split);
}

}  // namespace sepal::io
