#include "ui/brush_target.h"

#include <algorithm>

namespace sepal::ui {

const std::string& brushTarget(UiContext& ctx) {
    if (ctx.brushChosen && !ctx.brushName.empty()) return ctx.brushName;
    const auto& groups = ctx.workspace.state().populations.groups;
    auto taken = [&](const std::string& name) {
        return std::any_of(groups.begin(), groups.end(),
                           [&](const app::Population& p) { return p.name == name; });
    };
    for (size_t n = 1;; ++n) {
        const std::string name = "population " + std::to_string(n);
        if (!taken(name)) {
            ctx.brushName = name;
            return ctx.brushName;
        }
    }
}

}  // namespace sepal::ui
