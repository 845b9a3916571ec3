#pragma once
// The keys of the script's "set KEY VALUE", as a table: each key sets what its window's control
// would, so a script changes settings the way a user does (one undo step each).

#include <span>
#include <string>

#include "app/state.h"
#include "gui/application.h"

namespace sepal::gui {

/// One key of "set".
struct ScriptSetting {
    const char* key;   ///< as written in the script ("colour.mode")
    const char* help;  ///< the values it takes
    /// Changes `state` (a copy of the workspace's) and hands it to the workspace, or changes
    /// the windows' own choices in the application; throws InputError for a bad value.
    void (*apply)(Application& app, app::State& state, const std::string& value);
};

/// Every key, in the order they were added.
std::span<const ScriptSetting> scriptSettings();

/// "set KEY VALUE": applies it and seals the undo step; throws InputError for an unknown key.
void applyScriptSetting(Application& app, const std::string& key, const std::string& value);

}  // namespace sepal::gui
