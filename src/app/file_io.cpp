#include "app/file_io.h"

#include "app/synthetic.h"
#include "core/common/error.h"
#include "core/pipeline/prepare.h"

namespace sepal::app {

io::Table readAnyTable(const std::string& path) {
    if (path.starts_with("synthetic:")) {
        size_t n = 0;
        try {
            n = std::stoul(path.substr(10));
        } catch (...) {
            throw InputError(path + ": write synthetic:N with N the number of events");
        }
        return makeSyntheticTable(n);
    }
    return readInput(path);
}

}  // namespace sepal::app
