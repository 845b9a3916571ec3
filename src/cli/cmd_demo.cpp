// sepal-cli demo --out FILE.fcs|FILE.csv: writes the generated demo dataset (data/demo.fcs).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/demo/demo_data.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/io/population_labels.h"

namespace sepal::cli {

namespace {

struct DemoOptions {
    std::string out;
    size_t events = 100000;
    uint64_t seed = 1;
    bool stateMarkers = false;
};

void runDemo(const DemoOptions& o) {
    if (o.events == 0) throw InputError("--events must be at least 1");
    io::Table table = demo::makeDemoTable(o.events, o.seed, o.stateMarkers);
    std::string ext = std::filesystem::path(o.out).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".csv") {
        io::recoverPopulationLabels(table);  // CSV keeps the names as a text column
        io::writeCsv(o.out, table);
    } else if (ext == ".fcs") {
        io::writeFcs(o.out, table);
    } else {
        throw InputError("--out: write FILE.fcs or FILE.csv, not '" + o.out + "'");
    }
    std::printf("wrote %zu events to %s\n", table.events(), o.out.c_str());
}

void addDemo(CLI::App& app) {
    auto options = std::make_shared<DemoOptions>();
    auto* cmd =
        app.add_subcommand("demo", "Write the generated demo dataset (simulated mass cytometry)");
    cmd->add_option("--out", options->out, "Output FILE.fcs or FILE.csv")->required();
    cmd->add_option("--events", options->events, "Number of events")->capture_default_str();
    cmd->add_option("--seed", options->seed, "Random seed")->capture_default_str();
    cmd->add_flag("--state-markers", options->stateMarkers,
                  "add nine state (function) markers: pSTAT5, pERK, pS6, Ki67, CD69, IFNg, TNFa, "
                  "GranzymeB, Perforin");
    cmd->callback([options] { runDemo(*options); });
}

}  // namespace

static CommandRegistration demoCommand{addDemo};

}  // namespace sepal::cli
