#include "core/transform/empty_channels.h"

#include <cmath>

namespace sepal {

std::vector<size_t> emptyChannels(const io::Table& table) {
    std::vector<size_t> empty;
    if (table.events() == 0) return empty;
    for (size_t c = 0; c < table.channels.size(); ++c) {
        bool any = false;
        for (size_t i = 0; i < table.events() && !any; ++i)
            any = std::isfinite(table.values.at(i, c));
        if (!any) empty.push_back(c);
    }
    return empty;
}

std::string emptyChannelNote(const io::Table& table, size_t index) {
    const io::Channel& ch = table.channels[index];
    const std::string name = ch.marker.empty() ? ch.name : ch.name + " (" + ch.marker + ")";
    return "channel " + name + " has no finite value in " + std::to_string(table.events()) +
           " events (all NA, NaN or infinite); it is left out of the embedding";
}

}  // namespace sepal
