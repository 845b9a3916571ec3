// sepal-cli info FILE... [--json]: versions, data sets, events and parameters of FCS files, with
// each parameter's role (what the default pipeline embeds and why it leaves the rest out).

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/io/fcs_reader.h"
#include "core/transform/channel_roles.h"

namespace sepal::cli {

namespace {

struct InfoOptions {
    std::vector<std::string> files;
    bool json = false;
};

nlohmann::json rangeJson(double range) {
    if (std::floor(range) == range && std::fabs(range) < 9.0e15) return static_cast<int64_t>(range);
    return range;
}

/// The role of every parameter of a data set, judged from the names alone.
std::vector<ChannelRole> rolesOf(const io::FcsDatasetInfo& d) {
    io::Table names;
    names.channels = d.parameters;
    return channelRoles(names);
}

nlohmann::json infoJson(const io::FcsFileInfo& info) {
    nlohmann::json file = {{"file", info.path}, {"datasets", nlohmann::json::array()}};
    for (const auto& d : info.datasets) {
        nlohmann::json params = nlohmann::json::array();
        const std::vector<ChannelRole> roles = rolesOf(d);
        for (size_t j = 0; j < d.parameters.size(); ++j) {
            const auto& p = d.parameters[j];
            params.push_back({{"name", p.name},
                              {"marker", p.marker},
                              {"range", rangeJson(p.range)},
                              {"bits", p.bits},
                              {"role", roleKey(roles[j])},
                              {"role_reason", roleReason(roles[j])}});
        }
        file["datasets"].push_back({{"version", d.version},
                                    {"events", d.events},
                                    {"parameters", params},
                                    {"spillover", d.spillover},
                                    {"warnings", d.warnings}});
    }
    return file;
}

std::string pad(const std::string& s, size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string rangeText(double range) {
    if (range == 0) return "-";
    return rangeJson(range).dump();
}

void printHuman(const io::FcsFileInfo& info) {
    std::cout << info.path << ": " << info.datasets.size()
              << (info.datasets.size() == 1 ? " data set\n" : " data sets\n");
    for (size_t i = 0; i < info.datasets.size(); ++i) {
        const auto& d = info.datasets[i];
        std::cout << "data set " << i << ": " << d.version << ", " << d.events << " events, "
                  << d.parameters.size() << " parameters, $DATATYPE " << d.datatype
                  << ", spillover " << (d.spillover ? "present" : "absent") << "\n";
        size_t wn = 4, wm = 6;
        for (const auto& p : d.parameters) {
            wn = std::max(wn, p.name.size());
            wm = std::max(wm, p.marker.size());
        }
        const std::vector<ChannelRole> roles = rolesOf(d);
        std::cout << "  " << pad("#", 4) << pad("name", wn + 2) << pad("marker", wm + 2)
                  << pad("range", 12) << pad("bits", 6) << "role\n";
        for (size_t j = 0; j < d.parameters.size(); ++j) {
            const auto& p = d.parameters[j];
            const bool embedded = roles[j] == ChannelRole::Marker;
            std::cout << "  " << pad(std::to_string(j + 1), 4) << pad(p.name, wn + 2)
                      << pad(p.marker.empty() ? "-" : p.marker, wm + 2)
                      << pad(rangeText(p.range), 12) << pad(std::to_string(p.bits), 6)
                      << (embedded ? "marker" : std::string("left out: ") + roleReason(roles[j]))
                      << "\n";
        }
        for (const auto& w : d.warnings) std::cout << "  warning: " << w << "\n";
    }
}

void addInfo(CLI::App& app) {
    auto options = std::make_shared<InfoOptions>();
    auto* cmd = app.add_subcommand("info", "Describe FCS files: data sets, events, parameters");
    cmd->add_option("files", options->files, "FCS files")->required();
    cmd->add_flag("--json", options->json, "One JSON object per file (one per line)");
    cmd->callback([options] {
        int failures = 0;
        for (const auto& path : options->files) {
            try {
                const io::FcsFileInfo info = io::inspectFcs(path);
                if (options->json)
                    std::cout << infoJson(info).dump(-1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace)
                              << "\n";
                else
                    printHuman(info);
            } catch (const InputError& e) {
                std::fprintf(stderr, "sepal-cli: error: %s\n", e.what());
                ++failures;
            }
            std::cout.flush();
        }
        if (failures > 0) throw CLI::RuntimeError(1);
    });
}

CommandRegistration infoCommand{addInfo};

}  // namespace

}  // namespace sepal::cli
