#include "core/model/model_panel.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <string>

#include "core/common/error.h"
#include "core/transform/channel_label.h"
#include "core/transform/pipeline.h"

namespace sepal {

namespace {
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

/// An isotope tag as mass cytometry writes it before a marker: a mass of 89 to 209 and a
/// metal's symbol, "142nd", "89y", "191irdi" (a symbol, so that "17a" of "IL-17A" is no tag).
bool isLowercaseIsotopeTag(const std::string& t) {
    size_t i = 0;
    while (i < t.size() && isDigit(t[i])) ++i;
    if (i < 2 || i > 3) return false;
    const int mass = std::stoi(t.substr(0, i));
    std::string symbol = t.substr(i);
    if (symbol.size() > 2 && symbol.ends_with("di")) symbol.resize(symbol.size() - 2);
    static const char* const kMetals[] = {"y",  "in", "la", "ce", "pr", "nd", "sm", "eu",
                                          "gd", "tb", "dy", "ho", "er", "tm", "yb", "lu",
                                          "ir", "pt", "pd", "cd", "rh", "bi", "ba", "cs"};
    const bool metal = std::any_of(std::begin(kMetals), std::end(kMetals),
                                   [&](const char* m) { return symbol == m; });
    return metal && mass >= 89 && mass <= 209;
}

/// Fluorochrome words that a panel writes beside a marker ("CD3 FITC", "CD19 APC-Cy7").
bool isFluorochromeWord(const std::string& t) {
    static const char* const kWords[] = {
        "fitc",  "pe",    "apc",   "percp",   "cy3",         "cy5",       "cy55",
        "cy7",   "ecd",   "pb",    "pacblue", "pacificblue", "pacorange", "alexa",
        "fluor", "af488", "af647", "af700",   "bv421",       "bv510",     "bv605",
        "bv650", "bv711", "bv786", "buv395",  "buv496",      "buv737",    "bb515",
        "bb700", "v450",  "v500",  "txred",   "efluor",      "qdot"};
    for (const char* w : kWords)
        if (t == w) return true;
    return false;
}

/// A marker name as panels write it differently: lower case, the words that are not isotope
/// tags or fluorochromes joined without spaces, '-', '_' (the whole name when nothing is left).
std::string comparable(const std::string& marker) {
    std::string whole, kept, token;
    auto take = [&] {
        if (!token.empty() && !isLowercaseIsotopeTag(token) && !isFluorochromeWord(token))
            kept += token;
        token.clear();
    };
    for (char c : marker) {
        const char l = char(std::tolower(static_cast<unsigned char>(c)));
        if (std::isalnum(static_cast<unsigned char>(l))) {
            token += l;
            whole += l;
        } else {
            take();
        }
    }
    take();
    return kept.empty() ? whole : kept;
}
}  // namespace

std::vector<std::string> columnMarkers(const io::Table& table,
                                       const std::vector<std::string>& columns) {
    std::vector<std::string> markers;
    for (const auto& column : columns) {
        std::string marker;
        for (const auto& ch : table.channels)
            if (ch.name == column) {
                marker = ch.marker;
                break;
            }
        if (marker.empty())
            for (const auto& ch : table.channels)
                if (ch.marker == column && ch.name != column) {
                    marker = column;
                    break;
                }
        // FlowJo's compensated "Comp-PE-A" stands for PE-A where the table lacks it.
        if (const int c = marker.empty() ? compensatedColumn(table, column) : -1; c >= 0)
            marker = table.channels[size_t(c)].marker;
        markers.push_back(marker);
    }
    return markers;
}

void checkPanel(const std::vector<std::string>& columns,
                const std::vector<std::string>& modelMarkers, const io::Table& data,
                const std::string& where) {
    if (modelMarkers.size() != columns.size()) return;
    const std::vector<std::string> here = columnMarkers(data, columns);
    std::string differ;
    size_t count = 0;
    for (size_t c = 0; c < columns.size(); ++c) {
        if (modelMarkers[c].empty() || here[c].empty()) continue;
        if (comparable(modelMarkers[c]) == comparable(here[c])) continue;
        differ += (differ.empty() ? "" : "; ") + columns[c] + " is " + modelMarkers[c] +
                  " in the model and " + here[c] + " here";
        ++count;
    }
    if (count == 0) return;
    throw InputError(where + ": the panel differs from the model's (" + differ +
                     "): the model would place and name these cells by markers they were not "
                     "stained for; apply a model trained on this panel, or, if they are the same "
                     "antibodies, correct the markers ($PnS) or apply with sepal-cli apply "
                     "--accept-other-markers");
}

namespace {
/// A path's file name, as messages name samples.
std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}
}  // namespace

void checkSamplesPanel(const std::vector<io::Table>& tables, const std::string& accept) {
    if (tables.size() < 2) return;
    const io::Table& first = tables.front();
    std::string differ;
    size_t count = 0;
    for (size_t s = 1; s < tables.size(); ++s)
        for (const io::Channel& ch : first.channels) {
            // A marker that repeats its channel's name names no stain.
            if (ch.marker.empty() || ch.marker == ch.name) continue;
            const int c = tables[s].findChannel(ch.name);
            if (c < 0 || tables[s].channels[size_t(c)].name != ch.name) continue;
            const std::string& other = tables[s].channels[size_t(c)].marker;
            if (other.empty() || other == ch.name || comparable(other) == comparable(ch.marker))
                continue;
            if (++count <= 3)
                differ += (differ.empty() ? "" : "; ") + ch.name + " is " + ch.marker + " in " +
                          fileName(first.source) + " and " + other + " in " +
                          fileName(tables[s].source);
        }
    if (count == 0) return;
    throw InputError("the samples' panels differ (" + differ +
                     (count > 3 ? "; and " + std::to_string(count - 3) + " more" : "") +
                     "): one column would hold different markers, and the cells be placed and "
                     "named by markers they were not stained for; open files of one panel, or, "
                     "if they are the same antibodies named otherwise, correct the markers "
                     "($PnS)" +
                     (accept.empty() ? "" : " or use " + accept));
}

void checkModelPanel(const LoadedModel& loaded, const io::Table& data, const std::string& where) {
    checkPanel(loaded.columns, loaded.columnMarkers, data, where);
    if (loaded.stateColumnMarkers.empty() || !loaded.stateTransform.is_object()) return;
    checkPanel(TransformPipeline::fromJson(loaded.stateTransform).columns(),
               loaded.stateColumnMarkers, data, where);
}

}  // namespace sepal
