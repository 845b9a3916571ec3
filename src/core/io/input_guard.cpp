#include "core/io/input_guard.h"

#include <filesystem>
#include <system_error>

#include "core/common/error.h"

namespace sepal::io {

namespace {
std::filesystem::path normalised(const std::string& path) {
    std::error_code ec;
    std::filesystem::path full = std::filesystem::weakly_canonical(path, ec);
    if (ec) full = std::filesystem::absolute(path, ec).lexically_normal();
    return full;
}
}  // namespace

bool sameFile(const std::string& a, const std::string& b) {
    if (a.empty() || b.empty()) return false;
    std::error_code ec;
    if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) {
        const bool same = std::filesystem::equivalent(a, b, ec);
        if (!ec) return same;
    }
    return normalised(a) == normalised(b);
}

void refuseOverwritingInput(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& option) {
    for (const std::string& input : inputs)
        if (sameFile(output, input))
            throw InputError(option + " '" + output + "' is the input file '" + input +
                             "'; writing it would destroy the data being read: choose another "
                             "output name");
}

}  // namespace sepal::io
