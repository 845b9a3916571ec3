#include <algorithm>

#include "core/transform/channel_roles.h"
#include "core/transform/empty_channels.h"
#include "core/transform/pipeline.h"

namespace sepal {

TransformPipeline TransformPipeline::defaultFor(const io::Table& table) {
    TransformPipeline p;
    const Cytometry kind = guessCytometry(table);
    ColumnTransform t;
    t.kind = ColumnTransform::Kind::Arcsinh;
    t.cofactor = kind == Cytometry::Mass ? 5.0 : 150.0;
    const std::vector<ChannelRole> roles = channelRoles(table);
    // A column without any finite value would leave no event to train on.
    std::vector<bool> empty(table.channels.size(), false);
    for (size_t c : emptyChannels(table)) empty[c] = true;
    const auto usable = [&](size_t c) { return !empty[c]; };
    for (size_t c = 0; c < table.channels.size(); ++c)
        if (roles[c] == ChannelRole::Marker && usable(c)) {
            ColumnStep step;
            step.name = table.channels[c].name;
            step.transform = t;
            p.steps.push_back(step);
        }
    if (p.steps.empty())  // nothing looks like a marker: keep every column rather than none
        for (size_t c = 0; c < table.channels.size(); ++c) {
            if (!usable(c)) continue;
            ColumnStep step;
            step.name = table.channels[c].name;
            step.transform = t;
            p.steps.push_back(step);
        }
    if (table.spillover) {
        bool allPresent = !table.spillover->channels.empty();
        for (const auto& name : table.spillover->channels)
            allPresent = allPresent && table.findChannel(name) >= 0;
        if (allPresent) p.compensation.source = CompensationStep::Source::File;
    }
    return p;
}

}  // namespace sepal
