#pragma once
// The kinds of the script's "export KIND PATH ...", as a table: each writes what its entry of
// the Export window would.

#include <span>
#include <string>

#include "gui/application.h"
#include "gui/script.h"

namespace sepal::gui {

/// One kind of "export".
struct ScriptExport {
    const char* kind;  ///< as written in the script ("csv")
    const char* help;  ///< the options after the path
    /// Writes `path`; the action's words after the path are the options.
    void (*write)(Application& app, const ScriptAction& action, const std::string& path);
};

/// Every kind, in the order they were added.
std::span<const ScriptExport> scriptExports();

/// "export KIND PATH ...": writes it and prints {"exported": PATH, "kind": KIND} on stdout (tests
/// wait for the line); throws InputError for too few words or an unknown kind.
void runScriptExport(Application& app, const ScriptAction& action);

}  // namespace sepal::gui
