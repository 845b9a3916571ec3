#include "core/transform/channel_label.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/transform/channel_roles.h"

namespace sepal {

namespace {

bool sameIgnoringCase(const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

/// A mass channel's isotope without brackets ("(Sm154)Di" -> "Sm154Di"); other names unchanged.
std::string plainName(const std::string& name) {
    const auto iso = isotopeOf(name);
    if (!iso) return name;
    const std::string suffix = endsWith(name, "Di") ? "Di" : endsWith(name, "Dd") ? "Dd" : "";
    return iso->element + std::to_string(iso->mass) + suffix;
}

std::string countWord(size_t n) {
    static const char* const kWords[] = {"no", "one", "two", "three", "four", "five"};
    return n < 6 ? kWords[n] : std::to_string(n);
}

std::string where(const io::Table& table) {
    return table.source.empty() ? std::string() : " in " + table.source;
}

}  // namespace

std::string channelLabel(const io::Channel& channel) {
    // Marker first: that is the name a user looks for in a list of channels.
    if (!hasOwnMarker(channel)) return channel.name;
    return channel.marker + " (" + plainName(channel.name) + ")";
}

std::vector<std::string> channelLabels(const io::Table& table) {
    std::vector<std::string> labels;
    for (const auto& c : table.channels) labels.push_back(channelLabel(c));
    // Counted by their lower-case form: O(columns), where comparing pairs was O(columns^2).
    std::unordered_map<std::string, size_t> count;
    std::vector<std::string> folded;
    for (const auto& l : labels) {
        std::string f = l;
        for (char& ch : f) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        ++count[f];
        folded.push_back(std::move(f));
    }
    std::vector<std::string> unique = labels;
    for (size_t i = 0; i < labels.size(); ++i)
        if (count[folded[i]] > 1) unique[i] += " #" + std::to_string(i + 1);
    return unique;
}

void headChannelsWithLabels(io::Table& table) {
    const std::vector<std::string> labels = channelLabels(table);
    for (size_t c = 0; c < table.channels.size(); ++c) {
        table.channels[c].name = labels[c];
        table.channels[c].marker.clear();
    }
}

std::vector<size_t> channelsNamed(const io::Table& table, const std::string& word) {
    const std::vector<std::string> labels = channelLabels(table);
    // What each column answers to, from the most to the least specific.
    const auto names = [&](size_t c, int level) -> std::vector<std::string> {
        const io::Channel& ch = table.channels[c];
        if (level == 0) return {ch.name};
        if (level == 1) return {labels[c], channelLabel(ch), plainName(ch.name)};
        return ch.marker.empty() ? std::vector<std::string>{} : std::vector<std::string>{ch.marker};
    };
    for (const bool ignoreCase : {false, true})
        for (int level = 0; level < 3; ++level) {
            std::vector<size_t> found;
            for (size_t c = 0; c < table.channels.size(); ++c)
                for (const std::string& name : names(c, level))
                    if (ignoreCase ? sameIgnoringCase(name, word) : name == word) {
                        found.push_back(c);
                        break;
                    }
            if (!found.empty()) return found;
        }
    return {};
}

void throwAmbiguousChannel(const io::Table& table, const std::string& word,
                           const std::vector<size_t>& columns, const std::string& context) {
    std::string channels;
    for (size_t c : columns)
        channels += (channels.empty() ? "" : ", ") + plainName(table.channels[c].name);
    throw InputError(context + ": " + word + " is on " + countWord(columns.size()) + " channels" +
                     where(table) + ": " + channels + "; name one, as '" +
                     channelLabels(table)[columns.front()] + "' or '" +
                     plainName(table.channels[columns.front()].name) + "'");
}

size_t resolveChannel(const io::Table& table, const std::string& word, const std::string& context) {
    const std::vector<size_t> found = channelsNamed(table, word);
    if (found.size() > 1) throwAmbiguousChannel(table, word, found, context);
    if (found.empty())
        throw InputError(context + ": no channel or marker '" + word + "'" + where(table) +
                         "; name one of: " + channelChoices(table));
    return found.front();
}

std::string uncompensatedName(const std::string& name) {
    for (const std::string_view prefix :
         {std::string_view(kCompensatedPrefix), std::string_view("Comp_")})
        if (name.size() > prefix.size() && name.starts_with(prefix))
            return name.substr(prefix.size());
    return {};
}

std::string compensatedName(const std::string& channel) {
    return kCompensatedPrefix + channel;
}

int compensatedColumn(const io::Table& table, const std::string& channel) {
    for (size_t c = 0; c < table.channels.size(); ++c)
        if (uncompensatedName(table.channels[c].name) == channel) return int(c);
    return -1;
}

std::string channelChoices(const io::Table& table) {
    constexpr size_t kShown = 80;
    const std::vector<std::string> labels = channelLabels(table);
    std::string text;
    for (size_t c = 0; c < labels.size() && c < kShown; ++c)
        text += (text.empty() ? "" : ", ") + labels[c];
    if (labels.size() > kShown) text += " and " + std::to_string(labels.size() - kShown) + " more";
    return text.empty() ? "(no channels)" : text;
}

std::vector<std::string> markerNames(const io::Table& table,
                                     const std::vector<std::string>& columns) {
    std::vector<std::string> out;
    std::vector<const io::Channel*> channels;
    for (const auto& column : columns) {
        const int c = table.findChannel(column);
        const io::Channel* ch = c >= 0 ? &table.channels[size_t(c)] : nullptr;
        channels.push_back(ch);
        out.push_back(ch && !ch->marker.empty() ? ch->marker : column);
    }
    // A marker on two channels ("CD14" on Cd112Di and Cd114Di) is told apart by its channel,
    // so that medians.csv and the heatmap have no two columns of one name.
    std::map<std::string, int> uses;
    for (const std::string& name : out) ++uses[name];
    for (size_t j = 0; j < out.size(); ++j)
        if (uses[out[j]] > 1 && channels[j]) out[j] = channelLabel(*channels[j]);
    return out;
}

}  // namespace sepal
