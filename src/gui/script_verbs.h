#pragma once
// The verbs a script may use, as a table: a verb is a name, a line of help and a function, so
// adding one is one entry and one function, not another branch of a chain.

#include <span>
#include <string>

#include "gui/script.h"
#include "gui/script_run.h"

namespace sepal::gui {

/// One script verb.
struct ScriptVerb {
    const char* name;                                  ///< the line's first word
    const char* help;                                  ///< its arguments and what it does
    void (*run)(ScriptRun& run, const ScriptAction&);  ///< does it (throws InputError)
};

/// Every verb, in the order --script-help lists them.
std::span<const ScriptVerb> scriptVerbs();

/// The verb called `name`, or null when there is none.
const ScriptVerb* findScriptVerb(const std::string& name);

}  // namespace sepal::gui
