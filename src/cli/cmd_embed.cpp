// sepal-cli embed: train landmarks on one or more files, project every event, write coordinates,
// and optionally a picture and the model.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

#include "backend/backends.h"
#include "cli/cli_export.h"
#include "cli/cli_gates.h"
#include "cli/cli_populations.h"
#include "cli/cli_progress.h"
#include "cli/cli_seed.h"
#include "cli/command_registry.h"
#include "core/cluster/agglomerate.h"
#include "core/cluster/metaclusters.h"
#include "core/cluster/population_naming.h"
#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/model/model_file.h"
#include "core/model/model_panel.h"
#include "core/pipeline/embed_output.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/landmark_spec.h"
#include "core/pipeline/prepare.h"
#include "core/raster/png.h"
#include "core/train/trainer_names.h"
#include "core/train/trainer_registry.h"
#include "core/transform/channel_label.h"
#include "core/transform/empty_channels.h"

namespace sepal::cli {
namespace {

struct EmbedArgs {
    std::vector<std::string> inputs;
    PrepareOptions prepare;
    std::string landmarks = landmarkSpecText(EmbedSettings().landmarks);  // kmeans:auto
    std::string layout;
    std::optional<int> k;
    std::optional<float> smooth;
    std::optional<float> adjust;
    uint64_t seed = 1;
    int threads = 0;
    std::string backend = "cpu";
    size_t trainSample = 20000;
    std::string out;
    ExportOptions exports;
    std::string png;
    std::string color = "density";
    std::string size = "1000x1000";
    std::string model;
    GateOptions gates;
    size_t metaclusters = 0;
    bool balanced = false;
    std::string supervise;
    size_t polish = 0;
    float polishRate = PolishParams().learningRate;
    std::string polishKernel = "umap";
    float perplexity = PolishParams().perplexity;
    float supervisionStrength = 3.0f;
    std::string metaclusterMethod = "ward";
    std::string markerClasses;  // --marker-classes FILE.csv
    std::string cellTypes;      // --cell-types FILE.csv
    bool quiet = false;
};

// What the run says of the state markers it keeps beside the embedded ones.
std::string stateColumnsNote(const TransformPipeline& state) {
    if (state.steps.empty()) return "";
    return " (type markers; " + std::to_string(state.steps.size()) +
           " state markers kept for medians and colour, --all-markers embeds them too)";
}

void runEmbed(const EmbedArgs& a) {
    setThreads(a.threads);
    EmbedSettings settings;
    settings.landmarks = parseLandmarkSpec(a.landmarks);
    settings.layout = checkLayout(a.layout);
    settings.params = defaultEmbedParams(settings.landmarks);
    if (a.k) settings.params.k = *a.k;
    if (a.smooth) settings.params.smooth = *a.smooth;
    if (a.adjust) settings.params.adjust = *a.adjust;
    settings.seed = a.seed;
    settings.trainSample = a.trainSample;
    // Check what can be checked before reading and training. An automatic count is known once
    // the cells are: k is checked here against its largest, and against the count itself after
    // training (a message naming 512 landmarks would mislead a run that trains 64).
    if (settings.landmarks.count == 0) {
        const size_t largest = landmarksForCells(SIZE_MAX);
        EmbedParams others = settings.params;
        others.k = 0;
        validateParams(others, largest);
        const int k = settings.params.k;
        if (k != 0 && (k < 4 || size_t(k) > largest))
            throw InputError("k = " + std::to_string(k) +
                             " is out of range: k (neighbours) must be at least 4 and at most the "
                             "number of landmarks, which the automatic count keeps at or below " +
                             std::to_string(largest) +
                             " (fewer for fewer cells); 0 picks the "
                             "default");
    } else {
        validateParams(settings.params, settings.landmarks.count);
    }
    exportFormatOf(a.out);
    std::vector<std::string> readFiles = a.inputs;
    readFiles.push_back(a.prepare.spilloverFile);
    readFiles.push_back(a.prepare.transform);
    readFiles.push_back(a.gates.gates);
    const GateSelection gates = chooseGates(a.gates, {}, a.inputs);
    if (!a.exports.perPopulation) io::refuseOverwritingInput(a.out, readFiles, "--out");
    io::refuseOverwritingInput(a.model, readFiles, "--model");
    io::refuseOverwritingInput(a.png, readFiles, "--png");
    io::refuseOverwritingInput(a.gates.writeGates, readFiles, "--write-gates");
    // Two outputs on one file: the second would replace the first.
    const std::pair<const char*, const std::string*> outputs[] = {
        {"--out", &a.out}, {"--model", &a.model}, {"--png", &a.png}};
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = i + 1; j < 3; ++j)
            if (!outputs[i].second->empty() && !outputs[j].second->empty() &&
                io::sameFile(*outputs[i].second, *outputs[j].second))
                throw InputError(std::string(outputs[i].first) + " and " + outputs[j].first +
                                 " name the same file " + *outputs[j].second +
                                 ": choose another output name for one of them");
    int width = 0, height = 0;
    if (!a.png.empty()) parseSize(a.size, width, height);
    MetaclusterSettings groups;
    groups.k = a.metaclusters;
    groups.method = metaclusterMethod(a.metaclusterMethod);
    groups.seed = a.seed;
    if (a.metaclusters > 0 && settings.landmarks.count > kMostAgglomerated)
        throw InputError("--metaclusters: at most " + std::to_string(kMostAgglomerated) +
                         " landmarks can be grouped; --landmarks asks for " +
                         std::to_string(settings.landmarks.count));
    if (a.metaclusters > 0 && settings.landmarks.count > 0 &&
        a.metaclusters > settings.landmarks.count)
        throw InputError("--metaclusters " + std::to_string(a.metaclusters) + ": more than the " +
                         std::to_string(settings.landmarks.count) + " landmarks to group");

    // The marker classes and cell types are read before the long work, so that a mistake in
    // them is said at once.
    const MarkerClassOverrides classes =
        a.markerClasses.empty() ? MarkerClassOverrides{} : readMarkerClasses(a.markerClasses);
    std::optional<std::vector<CellTypeRule>> cellTypes;
    if (!a.cellTypes.empty()) cellTypes = readCellTypes(a.cellTypes);
    PrepareOptions prepare = a.prepare;
    prepare.markerClasses = classes;  // type markers are embedded, state ones kept beside
    PreparedInput input = prepareInputs(a.inputs, prepare);
    for (const auto& w : input.table.warnings) note(a.quiet, w);
    Matrix everyCell;  // before the gates: the cells the populations' marker cuts are learnt from
    if (!gates.population.empty()) {
        // The transform stays fitted on every event (as the app fits it before gating); the
        // gates then choose the events that are trained on, projected and written.
        const size_t events = input.table.events();
        const size_t kept = keepGatedCells(input.table, gates);
        note(a.quiet, gatedSummary(kept, events, gates));
        if (kept == 0) throw InputError(gatedSummary(kept, events, gates) + ": nothing to embed");
        if (a.metaclusters > 0) everyCell = std::move(input.points);
        input.points = input.pipeline.apply(input.table);
        if (!input.statePipeline.steps.empty())
            input.statePoints = input.statePipeline.apply(input.table);
    }
    const std::vector<std::string> used = input.pipeline.columns();
    for (size_t c : emptyChannels(input.table))
        if (std::find(used.begin(), used.end(), input.table.channels[c].name) == used.end())
            note(a.quiet, emptyChannelNote(input.table, c));
    note(a.quiet, std::to_string(input.points.rows) + " events, " +
                      std::to_string(input.points.cols) + " columns" +
                      stateColumnsNote(input.statePipeline));
    settings.polish.epochs = a.polish;
    settings.polish.learningRate = a.polishRate;
    settings.polish.kernel = a.polishKernel == "tsne" ? PolishKernel::StudentT : PolishKernel::Umap;
    settings.polish.perplexity = a.perplexity;
    settings.polish.seed = a.seed;
    if (!a.supervise.empty()) {
        // A label column of the inputs (its events in the gates) guides the layout.
        std::string names;
        bool found = false;
        for (const auto& l : input.table.labels) {
            if (l.name == a.supervise) settings.supervision = l.codes, found = true;
            names += (names.empty() ? "" : ", ") + l.name;
        }
        if (!found)
            throw InputError("--supervise " + a.supervise +
                             ": no such label column (the inputs have " +
                             (names.empty() ? std::string("none") : names) + ")");
        settings.supervisionStrength = a.supervisionStrength;
    }
    if (a.balanced) {
        // The sample column prepareInputs adds to several files names each event's file.
        for (const auto& l : input.table.labels)
            if (l.name == a.prepare.sampleColumn) settings.balanceGroups = l.codes;
        if (settings.balanceGroups.empty())
            note(a.quiet, "--balanced: one file, nothing to balance");
        else
            note(a.quiet, "training on the same number of events from each of the " +
                              std::to_string(a.inputs.size()) + " files");
    }
    // What can only be checked against the cells is checked before the long work, so that no
    // output is written for a run that ends in an error: the picture's colour (the populations
    // come with --metaclusters), and --metaclusters against the automatic landmark count.
    std::optional<raster::PictureSpec> spec;
    if (!a.png.empty() && !(a.metaclusters > 0 && a.color == "population"))
        spec = pictureSpecFor(input.table, a.color, input.points, input.pipeline.columns());
    const size_t landmarkCount = landmarksFor(settings.landmarks, input.points.rows).count;
    if (a.metaclusters > 0 && landmarkCount > 0 && a.metaclusters > landmarkCount)
        throw InputError("--metaclusters " + std::to_string(a.metaclusters) +
                         ": more groups than the " + std::to_string(landmarkCount) +
                         " landmarks that " + std::to_string(input.points.rows) +
                         " events call for");
    Backend backend = makeBackend(a.backend);
    if (!backend.reason.empty()) note(a.quiet, "backend " + backend.name + ": " + backend.reason);
    settings.polish.device = backend.polish.get();  // the UMAP-like polish on its device
    EmbedResult result = embedMatrix(input.points, settings, *backend.projector, *backend.search,
                                     stderrProgress(a.quiet));
    const auto& t = result.timings;
    char polish[32] = "";
    if (settings.polish.epochs) std::snprintf(polish, sizeof polish, ", polish %.3f", t.polish);
    char timing[200];
    std::snprintf(timing, sizeof timing,
                  "%zu landmarks; seconds: train %.3f, layout %.3f, project %.3f%s, total %.3f "
                  "on %d thread%s",
                  result.model.count(), t.train, t.layout, t.project, polish,
                  t.train + t.layout + t.project + t.polish, t.threads, t.threads == 1 ? "" : "s");
    note(a.quiet, timing);
    if (!result.polishNote.empty()) note(a.quiet, result.polishNote);
    // Both counts are the events with a missing value in an embedded column.
    if (result.trainingSkipped > 0 || result.report.nonFinitePoints > 0)
        note(a.quiet,
             std::to_string(std::max(result.trainingSkipped, result.report.nonFinitePoints)) +
                 " events have NA, NaN or infinity in an embedded column: they were left "
                 "out of training and placed at their neighbours");

    std::vector<ModelPopulation> populations;
    if (a.metaclusters > 0) {
        // Each landmark weighs the cells it is nearest to, as in the app.
        const auto nearest = nearestLandmarks(input.points, result.model, *backend.search);
        groups.weights = landmarkWeights(input.points, nearest, result.model.count());
        NamingInput naming = namingInputFor(input.table, input.pipeline.columns(), classes,
                                            cellTypes ? &*cellTypes : nullptr);
        // A marker's cuts are its cuts on every cell, as in the app: in a CD4 T gate, CD4's.
        if (everyCell.rows > 0) naming.cutsFrom = &everyCell;
        groups.columns = groupingColumns(naming.classes);
        const auto ofLandmark = metaclusterLandmarks(result.model, groups);
        const auto codes = groupsOfNearest(input.points, nearest, ofLandmark);
        const auto named = namePopulations(input.points, codes, groups.k, naming);
        std::vector<std::string> names;
        for (const PopulationName& n : named) names.push_back(n.name);
        populations = populationsFromGroups(ofLandmark, names);
        for (size_t p = 0; p < named.size(); ++p) populations[p].phenotype = named[p].phrase;
        setPopulationColumn(input.table, names, codes);
        std::string list;
        for (const PopulationName& n : named)
            list += (list.empty() ? "" : "; ") + n.name +
                    (n.phrase.empty() || n.phrase == n.name ? "" : " (" + n.phrase + ")");
        note(a.quiet, std::to_string(names.size()) + " populations (" + a.metaclusterMethod +
                          " metaclusters of the landmarks): " + list);
    }
    writeEmbedded(a.out,
                  {&input.table, &result.xy, input.pipeline.columns(), &input.points,
                   a.prepare.sampleColumn, readFiles, gateTree(gates)},
                  a.exports, a.quiet);
    if (!a.model.empty())
        saveModel(a.model, result.model, input.pipeline.columns(), input.pipeline.toJson(),
                  settings.params, populations, gates, {},
                  columnClasses(input.table, input.pipeline.columns(), classes),
                  input.statePipeline.toJson(),
                  columnMarkers(input.table, input.pipeline.columns()),
                  columnMarkers(input.table, input.statePipeline.columns()));
    {
        // A FlowJo user opening the written FCS file sees the populations by name under the
        // gates; beside other outputs the gates alone, over the inputs.
        const bool fcsOut = exportFormatOf(a.out) == ExportFormat::Fcs && !a.exports.perPopulation;
        std::vector<std::string> names;
        if (fcsOut)
            for (const ModelPopulation& p : populations) names.push_back(p.name);
        writeGatesBack(a.gates, gates, names, fcsOut ? std::vector<std::string>{a.out} : a.inputs);
    }
    if (!a.png.empty()) {
        // Made before training, unless it colours by the populations made since.
        if (!spec)
            spec = pictureSpecFor(input.table, a.color, input.points, input.pipeline.columns());
        spec->width = width;
        spec->height = height;
        raster::writePng(a.png, raster::renderPicture(result.xy.data(), result.xy.rows, *spec));
    }
}

void addEmbedCommand(CLI::App& app) {
    auto args = std::make_shared<EmbedArgs>();
    CLI::App* cmd = app.add_subcommand(
        "embed",
        "Train landmarks on the inputs (several files = samples), project every event "
        "with EmbedSOM, write the coordinates (and a picture, and the model)");
    cmd->add_option("inputs", args->inputs, "FCS, CSV/TSV or points JSON files")->required();
    cmd->add_option("--out", args->out,
                    "output table with EmbedSOM1, EmbedSOM2 and the population and sample "
                    "columns added (.csv or .fcs), or AnnData (.h5ad: X the embedded channels as "
                    "transformed, layers['raw'], obsm['X_embedsom'], obs the sample, population "
                    "and gates)")
        ->required();
    addExportOptions(cmd, args->exports);
    cmd->add_option("--columns", args->prepare.columns,
                    "channels or markers to embed (default: the preset's markers)")
        ->delimiter(',');
    cmd->add_flag("--all-markers", args->prepare.allMarkers,
                  "embed the state markers too (default: a panel with type and state markers "
                  "embeds its type markers; the state ones stay for colour, medians and the "
                  "heatmap)");
    cmd->add_flag("--accept-other-markers", args->prepare.acceptOtherMarkers,
                  "embed files whose channels carry other markers than the first file's (the "
                  "same antibodies named otherwise): by default refused");
    cmd->add_option("--transform", args->prepare.transform,
                    "default, none, asinh:COFACTOR, logicle, or a pipeline/model .json file")
        ->capture_default_str();
    cmd->add_option("--spillover", args->prepare.spilloverFile,
                    "compensate with this spillover matrix file (CSV/TSV with a header of channel "
                    "names, or the $SPILLOVER form) instead of the files' own");
    cmd->add_option("--landmarks", args->landmarks, "landmarks to train: " + landmarkForms())
        ->capture_default_str();
    // The defaults differ by landmark trainer: each entry of the registry says its own.
    const auto number = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        return std::string(text);
    };
    cmd->add_option("--layout", args->layout,
                    "2D layout of the landmarks: " + layoutForms() +
                        " (keep the initial positions); default: " +
                        perLandmarkTrainer([](const TrainerInfo& t) {
                            return t.followedBy == trainer_name::kKeepGrid ? "the grid"
                                                                           : t.followedBy;
                        }));
    cmd->add_option("--k", args->k,
                    "EmbedSOM neighbours (default " + perLandmarkTrainer([&](const TrainerInfo& t) {
                        return t.embed.k == 0 ? std::string("1+sqrt(g)") : number(t.embed.k);
                    }) + ")");
    cmd->add_option("--smooth", args->smooth,
                    "EmbedSOM smoothing (default " + perLandmarkTrainer([&](const TrainerInfo& t) {
                        return number(t.embed.smooth);
                    }) + ")");
    cmd->add_option("--adjust", args->adjust,
                    "EmbedSOM adjust (default " + perLandmarkTrainer([&](const TrainerInfo& t) {
                        return number(t.embed.adjust);
                    }) + ")");
    addSeedOption(cmd, args->seed, "random seed");
    cmd->add_option("--threads", args->threads, "CPU threads (0 = all)")->capture_default_str();
    cmd->add_option("--backend", args->backend, "cpu, cuda, auto or reference")
        ->capture_default_str();
    cmd->add_option("--train-sample", args->trainSample,
                    "events the landmarks are trained on (0 = all)")
        ->capture_default_str();
    cmd->add_option("--png", args->png, "also write a picture of the embedding");
    cmd->add_option("--color", args->color,
                    "picture colouring: density, label, a label column or a channel/marker")
        ->capture_default_str();
    cmd->add_option("--size", args->size, "picture size WIDTHxHEIGHT")->capture_default_str();
    cmd->add_option("--model", args->model, "also save the landmark model (JSON) for apply");
    addGateOptions(cmd, args->gates,
                   "only the events of the chosen population are trained on, embedded and "
                   "written; the model keeps the gates for apply");
    cmd->add_flag("--balanced", args->balanced,
                  "with several files: train on the same number of events from each (of "
                  "--train-sample in all), so that a large sample does not outweigh the others");
    cmd->add_option("--polish", args->polish,
                    "epochs of a polish of every cell on its data-space neighbours, from "
                    "EmbedSOM's positions (0: none; UMAP-like 10 to 30, t-SNE-like 150 to 300); "
                    "polished cells no longer follow the landmarks, so the model and apply give "
                    "EmbedSOM's positions; with --backend cuda the UMAP-like polish's neighbour "
                    "search and epochs run on the GPU, to the same positions")
        ->capture_default_str()
        ->check(CLI::Range(0, 10000));
    cmd->add_option("--polish-rate", args->polishRate,
                    "the polish's first step (falling to 0 over its epochs): cytometry's clusters "
                    "keep their neighbourhoods best near the default, smooth shapes such as the "
                    "mammoth unfold further with 1 (UMAP's own)")
        ->capture_default_str()
        ->check(CLI::Range(0.001, 10.0));
    cmd->add_option("--polish-kernel", args->polishKernel,
                    "umap: UMAP's curve, a few epochs that keep EmbedSOM's spacing; tsne: "
                    "t-SNE's Student-t kernel and its whole repulsion (through a grid), "
                    "clusters pulled apart and their insides resolved as t-SNE does (its own "
                    "step and momentum: --polish-rate is the UMAP-like polish's)")
        ->capture_default_str()
        ->check(CLI::IsMember({"umap", "tsne"}));
    cmd->add_option("--perplexity", args->perplexity,
                    "with --polish-kernel tsne: its perplexity (effective neighbours; 3 x as many "
                    "are found)")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 100.0));
    cmd->add_option("--supervise", args->supervise,
                    "a label column (for example the populations of an earlier analysis): the "
                    "layout pulls the landmarks of each label together (layouts " +
                        supervisableLayouts() + ")");
    cmd->add_option("--supervision-strength", args->supervisionStrength,
                    "how strongly: the similarity of landmarks with different labels is "
                    "multiplied by exp(-strength)")
        ->capture_default_str()
        ->check(CLI::Range(0.0f, 50.0f));
    cmd->add_option("--metaclusters", args->metaclusters,
                    "group the landmarks into this many populations (kept in the model; the "
                    "output gets a population column); 0: none")
        ->capture_default_str();
    cmd->add_option("--metacluster-method", args->metaclusterMethod,
                    "ward (Ward's linkage, each landmark weighing its cells) or consensus "
                    "(FlowSOM's consensus clustering)")
        ->capture_default_str();
    cmd->add_option("--marker-classes", args->markerClasses,
                    "CSV of channel,class (type, state or none) over the built-in marker "
                    "catalogue: only type (lineage) markers name populations")
        ->check(CLI::ExistingFile);
    cmd->add_option("--cell-types", args->cellTypes,
                    "CSV of name,rule ('CD4 T,CD3+ CD4+ CD8-') instead of the built-in cell "
                    "types that give populations their common names; the last rule that holds "
                    "names a population")
        ->check(CLI::ExistingFile);
    cmd->add_flag("--quiet,-q", args->quiet, "no progress or notes on stderr");
    cmd->callback([args] { runEmbed(*args); });
}

CommandRegistration embedCommand{addEmbedCommand};

}  // namespace
}  // namespace sepal::cli
