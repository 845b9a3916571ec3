#include "core/embedsom/kernel_choice_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "core/common/error.h"
#include "core/io/atomic_file.h"
#include "core/io/regular_file.h"

namespace sepal {

namespace {

constexpr const char* kChoiceFormat = "sepal-cuda-kernel-choices";
constexpr int kChoiceVersion = 1;

KernelChoice choiceFromJson(const nlohmann::json& j) {
    KernelChoice c;
    c.kernel = j.at("kernel").get<std::string>();
    if (c.kernel.empty()) throw std::runtime_error("a choice without a kernel");
    c.points = j.at("points").get<size_t>();
    for (const auto& t : j.at("timings_ms"))
        c.timings.push_back({t.at("kernel").get<std::string>(), t.at("ms").get<double>()});
    return c;
}

nlohmann::json choiceToJson(const KernelChoice& c) {
    nlohmann::json timings = nlohmann::json::array();
    for (const KernelTiming& t : c.timings) timings.push_back({{"kernel", t.kernel}, {"ms", t.ms}});
    return {{"kernel", c.kernel}, {"points", c.points}, {"timings_ms", timings}};
}

}  // namespace

KernelChoices parseKernelChoices(const std::string& text) {
    try {
        const nlohmann::json j = nlohmann::json::parse(text);
        if (!j.is_object() || j.value("format", std::string()) != kChoiceFormat)
            throw std::runtime_error(std::string("not a ") + kChoiceFormat + " file");
        if (j.at("version").get<int>() != kChoiceVersion)
            throw std::runtime_error("version " + j.at("version").dump() + ", not " +
                                     std::to_string(kChoiceVersion));
        KernelChoices choices;
        for (const auto& [device, shapes] : j.at("devices").items()) {
            if (!shapes.is_object())
                throw std::runtime_error("device '" + device + "' is no object");
            for (const auto& [shape, choice] : shapes.items())
                choices[device][shape] = choiceFromJson(choice);
        }
        return choices;
    } catch (const nlohmann::json::exception& e) {
        // json's own words ("[json.exception.parse_error.101] ..."): where the text went wrong.
        throw std::runtime_error(e.what());
    }
}

std::string kernelChoicesJson(const KernelChoices& choices) {
    nlohmann::json devices = nlohmann::json::object();
    for (const auto& [device, shapes] : choices)
        for (const auto& [shape, choice] : shapes) devices[device][shape] = choiceToJson(choice);
    const nlohmann::json j = {
        {"format", kChoiceFormat}, {"version", kChoiceVersion}, {"devices", devices}};
    return j.dump(1) + "\n";
}

std::optional<KernelChoices> readKernelChoiceFile(const std::string& path, std::string& why) {
    std::error_code missing;
    if (!std::filesystem::exists(path, missing)) return KernelChoices{};
    try {
        io::requireRegularFile(path);
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error(std::strerror(errno));
        std::ostringstream text;
        text << in.rdbuf();
        return parseKernelChoices(text.str());
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

void writeKernelChoiceFile(const std::string& path, const KernelChoices& choices) {
    const std::string text = kernelChoicesJson(choices);
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace sepal
