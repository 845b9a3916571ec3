#include "app/file_io.h"

#include "app/synthetic.h"
#include "core/common/error.h"
#include "core/pipeline/prepare.h"

namespace sepal::app {

io::Table readAnyTable(const std::string& path) {
    if (path.starts_with("synthetic:")) {
        // synthetic:N or synthetic:NxD (D channels).
        size_t n = 0, d = 10, used = 0;
        const std::string spec = path.substr(10);
        try {
            n = std::stoul(spec, &used);
            if (used < spec.size()) {
                if (spec[used] != 'x') throw InputError("");
                size_t more = 0;
                d = std::stoul(spec.substr(used + 1), &more);
                if (used + 1 + more != spec.size() || d == 0) throw InputError("");
            }
        } catch (...) {
            throw InputError(path +
                             ": write synthetic:N or synthetic:NxD with N the number of events "
                             "and D the channels");
        }
        return makeSyntheticTable(n, d);
    }
    return readInput(path);
}

}  // namespace sepal::app
