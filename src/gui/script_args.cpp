#include "gui/script_args.h"

#include <algorithm>

#include "core/common/error.h"

namespace sepal::gui {

bool hasWord(const std::vector<std::string>& args, const char* word) {
    return std::find(args.begin(), args.end(), word) != args.end();
}

float numberArg(const ScriptAction& a, size_t i) {
    if (i >= a.args.size())
        throw InputError("script line " + std::to_string(a.line) + ": '" + a.verb +
                         "' needs more arguments");
    try {
        return std::stof(a.args[i]);
    } catch (...) {
        throw InputError("script line " + std::to_string(a.line) + ": '" + a.args[i] +
                         "' is not a number");
    }
}

}  // namespace sepal::gui
