#include "core/io/input_guard.h"

#include <filesystem>
#include <map>
#include <system_error>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/spillover_file.h"

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
    // A CSV table writes (or removes) the spillover matrix beside it.
    if (lowerExtension(output) != ".csv") return;
    const std::string beside = spilloverBeside(output);
    for (const std::string& input : inputs)
        if (sameFile(beside, input))
            throw InputError(option + " '" + output + "' would replace the spillover matrix '" +
                             input + "' beside it, which is an input: choose another output name");
}

void refuseRepeatedInputs(const std::vector<std::string>& inputs) {
    std::map<std::filesystem::path, size_t> first;  // each file's first place among the inputs
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto [at, added] = first.emplace(normalised(inputs[i]), i);
        if (!added)
            throw InputError(inputs[i] + ": given twice (inputs " + std::to_string(at->second + 1) +
                             " and " + std::to_string(i + 1) +
                             "); each file is one sample, and its cells would count twice: "
                             "give it once");
    }
}

}  // namespace sepal::io
