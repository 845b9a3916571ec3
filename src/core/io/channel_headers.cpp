#include "core/io/channel_headers.h"

#include <cctype>
#include <optional>
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

// A detector's name is one word with a letter and a digit or a dash ("Nd142Di", "FL1-A",
// "Comp-PE-Cy7-A"): units and notes in brackets ("kg", "mg/L", "2019") are not.
bool readsAsChannel(const std::string& word) {
    bool letter = false, digitOrDash = false;
    for (const char c : word) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isspace(u) || c == '(' || c == ')' || c == '/' || c == ',') return false;
        letter = letter || std::isalpha(u);
        digitOrDash = digitOrDash || std::isdigit(u) || c == '-';
    }
    return letter && digitOrDash;
}

// The channel and marker a header names, or nothing when it names one thing.
std::optional<std::pair<std::string, std::string>> channelAndMarker(const std::string& header) {
    const std::string h = trimmed(header);
    if (const size_t at = h.find(" :: "); at != std::string::npos) {
        std::string channel = trimmed(h.substr(0, at)), marker = trimmed(h.substr(at + 4));
        if (readsAsChannel(channel) && !marker.empty())
            return std::make_pair(std::move(channel), std::move(marker));
        return std::nullopt;
    }
    const size_t open = h.rfind(" (");
    if (open == std::string::npos || h.back() != ')') return std::nullopt;
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
