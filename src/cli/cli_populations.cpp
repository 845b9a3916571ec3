#include "cli/cli_populations.h"

#include <algorithm>

namespace sepal::cli {

std::vector<std::string> markerNames(const io::Table& table,
                                     const std::vector<std::string>& columns) {
    std::vector<std::string> out;
    for (const auto& column : columns) {
        const int c = table.findChannel(column);
        const io::Channel* ch = c >= 0 ? &table.channels[size_t(c)] : nullptr;
        out.push_back(ch && !ch->marker.empty() ? ch->marker : column);
    }
    return out;
}

void setPopulationColumn(io::Table& table, const std::vector<std::string>& names,
                         const std::vector<int32_t>& codes) {
    std::erase_if(table.labels, [](const io::LabelColumn& l) { return l.name == "population"; });
    table.labels.insert(table.labels.begin(), io::LabelColumn{"population", names, codes});
}

}  // namespace sepal::cli
