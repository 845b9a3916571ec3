// sepal-cli demo --out FILE.fcs|FILE.csv: writes the generated demo dataset (data/demo.fcs);
// sepal-cli demo --cohort DIR: a generated study (patients x conditions with planted effects).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_seed.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/text.h"
#include "core/demo/demo_cohort.h"
#include "core/demo/demo_data.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_writer.h"
#include "core/io/population_labels.h"

namespace sepal::cli {

namespace {

struct DemoOptions {
    std::string out;
    std::string cohort;
    size_t patients = 3;
    std::vector<std::string> conditions{"unstim", "stim"};
    size_t events = 100000;
    uint64_t seed = 1;
    bool stateMarkers = false;
    size_t batches = 1;
    std::string batchEffect = "marker";
};

/// Writes the cohort's files, its samples.csv and planted.csv (the truth) into o.cohort.
void writeCohort(const DemoOptions& o) {
    if (o.batchEffect != "marker" && o.batchEffect != "population")
        throw InputError("--batch-effect " + o.batchEffect + ": marker or population");
    const demo::CohortSpec spec{o.patients, o.conditions, o.events,
                                o.seed,     o.batches,    o.batchEffect == "population"};
    const auto samples = demo::cohortSamples(spec);
    std::error_code ec;
    std::filesystem::create_directories(o.cohort, ec);
    if (ec) throw InputError("--cohort " + o.cohort + ": cannot create it (" + ec.message() + ")");
    const std::filesystem::path dir(o.cohort);
    // With batches, each sample's batch and whether it is the reference donor's (the anchors).
    const bool batched = o.batches > 1;
    std::string metadata =
        batched ? "file,condition,patient,batch,type\n" : "file,condition,patient\n";
    for (const auto& s : samples) {
        const std::string file = s.name + ".fcs";
        io::writeFcs((dir / file).string(), demo::cohortTable(s, o.events));
        metadata += file + "," + s.condition + "," + s.patient;
        if (batched) metadata += "," + s.batch + "," + (s.reference ? "reference" : "sample");
        metadata += "\n";
    }
    io::writeFileAtomically((dir / "samples.csv").string(),
                            [&](std::ostream& out) { out << metadata; });
    std::string planted = "population,marker,effect\n";
    for (const auto& e : demo::plantedEffects())
        planted +=
            io::csvField(e.population) + "," + e.marker + "," + std::to_string(e.effect) + "\n";
    io::writeFileAtomically((dir / "planted.csv").string(),
                            [&](std::ostream& out) { out << planted; });
    std::printf("wrote %zu samples of %zu events, samples.csv and planted.csv to %s\n",
                samples.size(), o.events, o.cohort.c_str());
}

void runDemo(const DemoOptions& o) {
    if (o.events == 0) throw InputError("--events must be at least 1");
    if (!o.cohort.empty()) return writeCohort(o);
    if (o.out.empty()) throw InputError("demo: give --out FILE.fcs, or --cohort DIR");
    io::Table table = demo::makeDemoTable(o.events, o.seed, o.stateMarkers);
    const std::string ext = lowerExtension(o.out);
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
    cmd->add_option("--out", options->out, "Output FILE.fcs or FILE.csv");
    cmd->add_option("--cohort", options->cohort,
                    "write a generated study to this folder instead: PATIENT_CONDITION.fcs per "
                    "sample (with state markers), samples.csv (file,condition,patient) and "
                    "planted.csv (the effects of the conditions after the first: population, "
                    "state marker or empty for abundance, factor or shift)");
    cmd->add_option("--patients", options->patients, "patients of --cohort")->capture_default_str();
    cmd->add_option("--batches", options->batches,
                    "batches --cohort was measured in: patients spread over them, each batch "
                    "with its own sensitivity per marker and a reference donor's sample "
                    "(Ref_b1.fcs...; samples.csv then has batch and type, reference or sample: "
                    "sepal-cli align --anchors type=reference)")
        ->capture_default_str();
    cmd->add_option("--batch-effect", options->batchEffect,
                    "with --batches: marker (one factor per marker and batch) or population "
                    "(each population's own factor besides, as where staining differs by cell "
                    "type: sepal-cli align --clusters)")
        ->capture_default_str();
    cmd->add_option("--conditions", options->conditions,
                    "conditions of --cohort, the first the baseline of the planted effects "
                    "(stats compares against the first in sorted order unless --reference "
                    "names another: stats --reference condition:unstim)")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--events", options->events, "Number of events")->capture_default_str();
    addSeedOption(cmd, options->seed, "Random seed");
    cmd->add_flag("--state-markers", options->stateMarkers,
                  "add nine state (function) markers: pSTAT5, pERK, pS6, Ki67, CD69, IFNg, TNFa, "
                  "GranzymeB, Perforin");
    cmd->callback([options] { runDemo(*options); });
}

}  // namespace

static CommandRegistration demoCommand{addDemo};

}  // namespace sepal::cli
