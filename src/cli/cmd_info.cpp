// sepal-cli info FILE... [--json]: versions, data sets, events and parameters of FCS files, with
// each parameter's role (what the default pipeline embeds and why it leaves the rest out); a CSV,
// TSV or points JSON table is described as embed reads it (events and columns).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/fcs_reader.h"
#include "core/io/read_any.h"
#include "core/io/spillover_file.h"
#include "core/markers/marker_classes.h"
#include "core/pipeline/prepare.h"
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

/// A data set's parameters as a table without events: what roles and classes are judged from.
io::Table namesOf(const io::FcsDatasetInfo& d) {
    io::Table names;
    names.channels = d.parameters;
    return names;
}

/// Markers embed leaves out by default as state markers: those of the state class in a panel
/// with two type markers or more (prepare.cpp's keepTypeMarkers).
std::vector<bool> leftOutStates(const std::vector<MarkerClass>& classes) {
    const auto types = std::count(classes.begin(), classes.end(), MarkerClass::Type);
    std::vector<bool> out(classes.size(), false);
    for (size_t c = 0; c < classes.size(); ++c)
        out[c] = types >= 2 && classes[c] == MarkerClass::State;
    return out;
}

/// Why embed leaves a state marker out, as info says it.
constexpr const char* kStateReason = "state marker (kept, not embedded)";

nlohmann::json infoJson(const io::FcsFileInfo& info) {
    nlohmann::json file = {{"file", info.path}, {"datasets", nlohmann::json::array()}};
    for (const auto& d : info.datasets) {
        nlohmann::json params = nlohmann::json::array();
        const std::vector<ChannelRole> roles = channelRoles(namesOf(d));
        const std::vector<MarkerClass> classes = defaultMarkerClasses(namesOf(d));
        const std::vector<bool> states = leftOutStates(classes);
        for (size_t j = 0; j < d.parameters.size(); ++j) {
            const auto& p = d.parameters[j];
            params.push_back({{"name", p.name},
                              {"marker", p.marker},
                              {"range", rangeJson(p.range)},
                              {"bits", p.bits},
                              {"role", roleKey(roles[j])},
                              {"role_reason", states[j] ? kStateReason : roleReason(roles[j])},
                              {"marker_class", markerClassKey(classes[j])}});
        }
        file["datasets"].push_back({{"version", d.version},
                                    {"events", d.events},
                                    {"parameters", params},
                                    {"spillover", d.spillover.has_value()},
                                    {"warnings", d.warnings}});
    }
    return file;
}

/// Characters of UTF-8 `s` (a column of "Alexa Fluor™ 405-A" counted its bytes, and the
/// columns after it shifted).
size_t columnsOf(const std::string& s) {
    return utf8CodePoints(s).size();
}

/// `s` padded with spaces to `width` characters.
std::string pad(const std::string& s, size_t width) {
    const size_t n = columnsOf(s);
    return n >= width ? s : s + std::string(width - n, ' ');
}

std::string rangeText(double range) {
    if (range == 0) return "-";
    return rangeJson(range).dump();
}

/// True for a readable regular file that does not start as FCS does (io::startsWithFcs): a
/// table, or an empty or short file the table reader describes. Anything else goes to
/// inspectFcs, which says why it cannot be read (a pipe is never read).
bool isTableFile(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && std::ifstream(path).good() &&
           !io::startsWithFcs(path);
}

/// A table that is not FCS, as embed reads it: its events and columns (with the marker a
/// header names, "CD45 (In115Di)"), which of them embed's default embeds, and why it leaves the
/// others out.
void describeTable(const std::string& path, bool json) {
    const io::Table table = io::readTable(path);
    const std::vector<ChannelRole> roles = channelRoles(table);
    const std::vector<MarkerClass> classes = defaultMarkerClasses(table);
    const std::vector<std::string> embedded = choosePipeline(table, PrepareOptions{}).columns();
    auto embeds = [&](size_t c) {
        return std::find(embedded.begin(), embedded.end(), table.channels[c].name) !=
               embedded.end();
    };
    auto why = [&](size_t c) {
        if (roles[c] != ChannelRole::Marker) return std::string(roleReason(roles[c]));
        return classes[c] == MarkerClass::State ? std::string(kStateReason)
                                                : std::string("not chosen");
    };
    if (json) {
        nlohmann::json columns = nlohmann::json::array();
        for (size_t c = 0; c < table.channels.size(); ++c)
            columns.push_back({{"name", table.channels[c].name},
                               {"marker", table.channels[c].marker},
                               {"role", embeds(c) ? "marker" : roleKey(roles[c])},
                               {"role_reason", embeds(c) ? std::string("marker") : why(c)}});
        std::cout << nlohmann::json{{"file", path},
                                    {"format", "table"},
                                    {"events", table.events()},
                                    {"spillover", table.spillover.has_value()},
                                    {"columns", columns}}
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
        return;
    }
    std::cout << path << ": a table, not FCS (read as embed reads it): " << table.events()
              << " events, " << table.channels.size() << " columns, spillover "
              << (table.spillover ? "from " + io::spilloverBeside(path) : std::string("absent"))
              << "\n";
    size_t wn = 4, wm = 6;
    for (const auto& c : table.channels) {
        wn = std::max(wn, columnsOf(c.name));
        wm = std::max(wm, columnsOf(c.marker));
    }
    std::cout << "  " << pad("#", 4) << pad("name", wn + 2) << pad("marker", wm + 2) << "role\n";
    for (size_t c = 0; c < table.channels.size(); ++c) {
        const io::Channel& ch = table.channels[c];
        std::cout << "  " << pad(std::to_string(c + 1), 4) << pad(ch.name, wn + 2)
                  << pad(ch.marker.empty() ? "-" : ch.marker, wm + 2)
                  << (embeds(c) ? "marker" : "left out: " + why(c)) << "\n";
    }
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
            wn = std::max(wn, columnsOf(p.name));
            wm = std::max(wm, columnsOf(p.marker));
        }
        const std::vector<ChannelRole> roles = channelRoles(namesOf(d));
        const std::vector<bool> states = leftOutStates(defaultMarkerClasses(namesOf(d)));
        std::cout << "  " << pad("#", 4) << pad("name", wn + 2) << pad("marker", wm + 2)
                  << pad("range", 12) << pad("bits", 6) << "role\n";
        for (size_t j = 0; j < d.parameters.size(); ++j) {
            const auto& p = d.parameters[j];
            const bool embedded = roles[j] == ChannelRole::Marker && !states[j];
            std::cout << "  " << pad(std::to_string(j + 1), 4) << pad(p.name, wn + 2)
                      << pad(p.marker.empty() ? "-" : p.marker, wm + 2)
                      << pad(rangeText(p.range), 12) << pad(std::to_string(p.bits), 6)
                      << (embedded    ? std::string("marker")
                          : states[j] ? std::string("left out: ") + kStateReason
                                      : std::string("left out: ") + roleReason(roles[j]))
                      << "\n";
        }
        for (const auto& w : d.warnings) std::cout << "  warning: " << w << "\n";
    }
}

void addInfo(CLI::App& app) {
    auto options = std::make_shared<InfoOptions>();
    auto* cmd = app.add_subcommand(
        "info",
        "Describe FCS files: data sets, events, parameters (a CSV, TSV or points JSON table: its "
        "events and columns)");
    cmd->add_option("files", options->files, "FCS files, or tables")->required();
    cmd->add_flag("--json", options->json, "One JSON object per file (one per line)");
    cmd->callback([options] {
        int failures = 0;
        for (const auto& path : options->files) {
            try {
                if (isTableFile(path)) {
                    describeTable(path, options->json);
                    std::cout.flush();
                    continue;
                }
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
