#include "ui/session_open.h"

#include "app/export_service.h"
#include "ui/ui_context.h"

namespace sepal::ui {

bool openSession(UiContext& ctx, const std::string& path, bool rememberPath) {
    try {
        const std::array<float, 3> view = ctx.workspace.exports().loadSession(path);
        ctx.camera.setState(view);
        ctx.sessionView = view;
        // An autosave is not where the user's own saves go.
        if (rememberPath)
            ctx.sessionPath = path;
        else
            ctx.sessionPath.clear();
        return true;
    } catch (const std::exception& e) {
        ctx.error(e.what());
        return false;
    }
}

void openPaths(UiContext& ctx, const std::vector<std::string>& paths, bool addAsSamples) {
    // A session saved by Export > Session or Ctrl+S was read as a table of points, and refused.
    if (paths.size() == 1 && app::isSessionFile(paths.front())) {
        openSession(ctx, paths.front(), true);
        return;
    }
    ctx.workspace.data().openFiles(paths, addAsSamples);
}

}  // namespace sepal::ui
