#pragma once
// Replayable user actions for tests and benchmarks (--script FILE): one action per line.
//
//
// The verbs, the keys of `set` and the kinds of `export`, with their arguments, are tables
// (script_verbs.cpp, script_settings.cpp, script_exports.cpp); `sepal --script-help` prints them.

#include <string>
#include <vector>

namespace sepal::gui {

/// One parsed line: the verb and its arguments.
struct ScriptAction {
    std::string verb;               ///< first word
    std::vector<std::string> args;  ///< the rest
    int line = 0;                   ///< 1-based line in the file
};

/// Reads a script; throws InputError naming the line of a malformed action.
std::vector<ScriptAction> readScript(const std::string& path);

/// The verbs, `set` keys and `export` kinds with their help, one a line (--script-help).
std::string scriptHelp();

}  // namespace sepal::gui
