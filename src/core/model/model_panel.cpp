#include "core/model/model_panel.h"

#include <cctype>

#include "core/common/error.h"

namespace sepal {

namespace {
/// A marker name as panels write it differently: lower case, without spaces, '-' or '_'.
std::string comparable(const std::string& marker) {
    std::string out;
    for (char c : marker)
        if (c != ' ' && c != '-' && c != '_')
            out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
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
                     "stained for; apply a model trained on this panel, or correct the markers "
                     "($PnS) if they are the same antibodies");
}

}  // namespace sepal
