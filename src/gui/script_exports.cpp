#include "gui/script_exports.h"

#include <algorithm>
#include <cstdio>

#include "core/common/error.h"
#include "core/pipeline/export_table.h"
#include "gui/script_args.h"

namespace sepal::gui {

namespace {

// Options after the path: transformed, used (channels), per-population; others are ignored.
void events(Application& app, const ScriptAction& a, const std::string& path) {
    ExportOptions options;
    for (size_t i = 2; i < a.args.size(); ++i) {
        if (a.args[i] == "transformed")
            options.values = ExportValues::Transformed;
        else if (a.args[i] == "used")
            options.allChannels = false;
        else if (a.args[i] == "per-population")
            options.perPopulation = true;
    }
    app.workspace().exports().events(path, options);
}

void model(Application& app, const ScriptAction&, const std::string& path) {
    app.workspace().exports().model(path);
}

void heatmap(Application& app, const ScriptAction& a, const std::string& path) {
    app.workspace().exports().heatmap(
        path, std::find(a.args.begin(), a.args.end(), "light") != a.args.end());
}

void counts(Application& app, const ScriptAction&, const std::string& path) {
    app.workspace().exports().counts(path);
}

void statistics(Application& app, const ScriptAction&, const std::string& path) {
    app.workspace().comparison().exportTables(path);
}

void gates(Application& app, const ScriptAction&, const std::string& path) {
    app.workspace().exports().gates(path);
}

void session(Application& app, const ScriptAction&, const std::string& path) {
    app.workspace().exports().saveSession(path, app.camera().state());
}

// W H after the path (default 1600 x 1200), then words that draw what exported pictures leave
// out by default.
void png(Application& app, const ScriptAction& a, const std::string& path) {
    const auto& args = a.args;
    ui::PngRequest r{path, args.size() > 3 ? int(numberArg(a, 2)) : 1600,
                     args.size() > 3 ? int(numberArg(a, 3)) : 1200, true};
    for (size_t i = 4; i < args.size(); ++i) {
        r.landmarks = r.landmarks || args[i] == "landmarks";
        r.graph = r.graph || args[i] == "graph";
        r.light = r.light || args[i] == "light";
    }
    app.exportPng(r);
}

// clang-format off
const ScriptExport kExports[] = {
    {"csv", "[transformed] [used] [per-population]: the events", events},
    {"fcs", "[used] [per-population]: the events (always raw values)", events},
    {"h5ad", "[used]: the events as AnnData, for Python", events},
    {"model", "the landmark model", model},
    {"heatmap", "[light]: the heatmap as PNG", heatmap},
    {"counts", "FOLDER: populations.csv and medians.csv as sepal-cli apply writes them, gate_counts.csv as sepal-cli gate", counts},
    {"stats", "FOLDER: the Compare window's tables and pictures, as sepal-cli stats writes them", statistics},
    {"gates", "the gates", gates},
    {"session", "the session (with the view)", session},
    {"png", "[W H [landmarks] [graph] [light]]: the canvas as a picture", png},
};
// clang-format on

}  // namespace

std::span<const ScriptExport> scriptExports() {
    return kExports;
}

void runScriptExport(Application& app, const ScriptAction& a) {
    if (a.args.size() < 2) throw InputError("export needs a kind and a path");
    const std::string& kind = a.args[0];
    const std::string& path = a.args[1];
    const auto it = std::find_if(std::begin(kExports), std::end(kExports),
                                 [&](const ScriptExport& e) { return kind == e.kind; });
    if (it == std::end(kExports)) throw InputError("unknown export kind " + kind);
    it->write(app, a, path);
    std::printf("{\"exported\": \"%s\", \"kind\": \"%s\"}\n", path.c_str(), kind.c_str());
}

}  // namespace sepal::gui
