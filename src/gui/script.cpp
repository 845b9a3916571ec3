#include "gui/script.h"

#include <fstream>
#include <set>
#include <sstream>

#include "core/common/error.h"

namespace sepal::gui {

std::vector<ScriptAction> readScript(const std::string& path) {
    static const std::set<std::string> kVerbs = {"open",
                                                 "add-samples",
                                                 "wait",
                                                 "settle",
                                                 "scored",
                                                 "click",
                                                 "drag",
                                                 "drag-landmark",
                                                 "click-landmark",
                                                 "key",
                                                 "lasso",
                                                 "split",
                                                 "set",
                                                 "train",
                                                 "recipe",
                                                 "spillover",
                                                 "metadata",
                                                 "export",
                                                 "load-session",
                                                 "fit",
                                                 "screenshot",
                                                 "state",
                                                 "quit",
                                                 "mouse",
                                                 "panel",
                                                 "crashed",
                                                 "autosave",
                                                 "populations-from-landmarks",
                                                 "merge-population"};
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
        if (!kVerbs.count(a.verb))
            throw InputError(path + ":" + std::to_string(line) + ": unknown action '" + a.verb +
                             "'; see the list at the top of src/gui/script.h");
        actions.push_back(std::move(a));
    }
    return actions;
}

}  // namespace sepal::gui
