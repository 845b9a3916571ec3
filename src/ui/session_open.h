#pragma once
// Opening what the user chose: a session file restores the whole session and its view; other
// files go to the data service (data, a model, gates).

#include <string>
#include <vector>

namespace sepal::ui {

struct UiContext;

/// Loads session `path` into the workspace, its view kept over the fits its data would get;
/// with `rememberPath`, Ctrl+S saves there next. Errors go to the log and the banner (false).
bool openSession(UiContext& ctx, const std::string& path, bool rememberPath);

/// Opens `paths` as the Open window does: one session file whole, else as data, a model or
/// gates (DataService::openFiles).
void openPaths(UiContext& ctx, const std::vector<std::string>& paths, bool addAsSamples);

}  // namespace sepal::ui
