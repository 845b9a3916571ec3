#include "gui/script.h"

#include <fstream>
#include <sstream>

#include "core/common/error.h"
#include "gui/script_exports.h"
#include "gui/script_settings.h"
#include "gui/script_verbs.h"

namespace sepal::gui {

std::vector<ScriptAction> readScript(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot read the script");
    std::vector<ScriptAction> actions;
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
        ++line;
        auto hash = text.find('#');
        if (hash != std::string::npos) text.resize(hash);
        std::istringstream words(text);
        ScriptAction a;
        a.line = line;
        if (!(words >> a.verb)) continue;
        for (std::string w; words >> w;) a.args.push_back(w);
        if (!findScriptVerb(a.verb))
            throw InputError(path + ":" + std::to_string(line) + ": unknown action '" + a.verb +
                             "'; sepal --script-help lists them");
        actions.push_back(std::move(a));
    }
    return actions;
}

std::string scriptHelp() {
    std::string text = "Script verbs (one action a line, # starts a comment):\n";
    for (const auto& v : scriptVerbs()) text += "  " + std::string(v.name) + "  " + v.help + "\n";
    text += "set KEY VALUE, the keys:\n";
    for (const auto& k : scriptSettings()) text += "  " + std::string(k.key) + "  " + k.help + "\n";
    text += "export KIND PATH, the kinds:\n";
    for (const auto& e : scriptExports()) text += "  " + std::string(e.kind) + "  " + e.help + "\n";
    return text;
}

}  // namespace sepal::gui
