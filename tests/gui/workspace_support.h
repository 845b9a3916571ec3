#pragma once
// Workspaces for the app's tests: a synthetic data set opened on the CPU backend, and the
// positions the CPU projector gives its cells under the current model (what every projection
// path, cached, swept or on a device, must reproduce).

#include <memory>
#include <vector>

#include "app/synthetic.h"
#include "app/workspace.h"
#include "core/embedsom/embedsom.h"

namespace sepal::app {

/// A workspace on the CPU backend with n synthetic cells opened (not yet trained).
inline std::unique_ptr<Workspace> openSynthetic(size_t n) {
    auto ws = std::make_unique<Workspace>("cpu");
    std::vector<io::Table> tables;
    tables.push_back(makeSyntheticTable(n));
    ws->openTables(std::move(tables));
    return ws;
}

/// Every cell projected at once by the CPU projector with the workspace's model and parameters.
inline std::vector<float> directProjection(const Workspace& ws) {
    const auto& st = ws.state();
    std::vector<float> xy(2 * st.data.events());
    makeCpuProjector()->project(st.data.points.data(), st.data.events(), st.data.points.cols,
                                st.model, st.embed, xy.data());
    return xy;
}

}  // namespace sepal::app
