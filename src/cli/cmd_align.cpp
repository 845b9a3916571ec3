// sepal-cli align IN... --metadata samples.csv --batch COLUMN --out-dir DIR: files measured in
// several batches carried onto their common distribution, marker by marker, from anchor samples
// (batch_alignment.h); the aligned files, the alignment and each marker's batch gap are written.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_gates.h"
#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/pipeline/aligned_files.h"
#include "core/pipeline/batch_alignment.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/sample_metadata.h"

namespace sepal::cli {

namespace {

struct AlignArgs {
    std::vector<std::string> inputs;
    std::string metadata;
    std::string batch = "batch";
    std::string anchors;
    std::string outDir;
    std::string alignment;      // a saved alignment to apply instead of learning one
    std::string saveAlignment;  // where the learnt alignment goes
    std::string transform = "default";
    std::string spillover;
    GateOptions gates;  // the population whose cells teach the alignment
    size_t levels = 101;
    size_t clusters = 1;
    bool quiet = false;
};

void runAlign(const AlignArgs& a) {
    io::refuseRepeatedInputs(a.inputs);
    const SampleMetadata metadata = readSampleMetadata(a.metadata);
    const bool learn = a.alignment.empty();
    if (!learn && a.clusters != 1)
        throw InputError("--clusters: a saved --alignment keeps the clusters it was learnt with");
    if (!learn && !a.anchors.empty())
        throw InputError(
            "--anchors: a saved --alignment is applied as it is; learn a new one "
            "without --alignment");
    const BatchAssignment assignment = assignBatches(metadata, a.inputs, a.batch, a.anchors, learn);
    std::vector<std::string> readFiles = a.inputs;
    readFiles.push_back(a.metadata);
    if (!learn) readFiles.push_back(a.alignment);
    if (!a.gates.gates.empty()) readFiles.push_back(a.gates.gates);
    io::refuseOverwritingInput(a.saveAlignment, readFiles, "--save-alignment");
    std::vector<io::Table> tables;
    for (const auto& path : a.inputs) tables.push_back(readInput(path));
    AlignRequest request;
    request.assignment = assignment;
    request.levels = a.levels;
    request.clusters = a.clusters;
    request.folder = a.outDir;
    request.folderOption = "--out-dir";
    request.readFiles = readFiles;
    request.gates = chooseGates(a.gates, {}, a.inputs);
    std::optional<BatchAlignment> given;
    if (learn) {
        PrepareOptions options;
        options.transform = a.transform;
        options.spilloverFile = a.spillover;
        const auto anchor = std::find(assignment.anchor.begin(), assignment.anchor.end(), true);
        request.scale = alignmentScale(tables[size_t(anchor - assignment.anchor.begin())], options);
    } else {
        given = readBatchAlignment(a.alignment);
        request.given = &*given;
    }
    if (learn)
        if (const std::string warning =
                confoundingWarning(confoundedColumns(metadata, a.inputs, assignment, a.batch));
            !warning.empty())
            warn(warning);
    const AlignedSamples aligned = alignSamples(tables, a.inputs, request);
    if (!a.saveAlignment.empty()) writeBatchAlignment(a.saveAlignment, aligned.alignment);
    note(a.quiet, aligned.summary());
}

void addAlignCommand(CLI::App& app) {
    auto args = std::make_shared<AlignArgs>();
    CLI::App* cmd = app.add_subcommand(
        "align",
        "Align files measured in several batches: each marker of each batch is carried onto "
        "the batches' mean distribution by a monotone map of its quantiles, learnt from anchor "
        "samples (a control measured in every batch), in the transformed scale and back to the "
        "files' own units. Writes the aligned files (same names, FCS or CSV) and "
        "batch_gaps.csv (each marker's mean earth mover's distance between batches, before "
        "and after) to --out-dir");
    cmd->add_option("inputs", args->inputs, "FCS, CSV/TSV or points JSON files")->required();
    cmd->add_option("--metadata", args->metadata,
                    "sample metadata CSV: a row per file, with its batch")
        ->required();
    cmd->add_option("--batch", args->batch, "the metadata column naming each file's batch")
        ->capture_default_str();
    cmd->add_option("--anchors", args->anchors,
                    "COLUMN=VALUE[,VALUE] or COLUMN!=VALUE: the files that teach the alignment "
                    "(such as type=control); every file by default");
    cmd->add_option("--out-dir", args->outDir, "folder for the aligned files (created if missing)")
        ->required();
    cmd->add_option("--levels", args->levels, "quantile levels learnt per marker and batch")
        ->capture_default_str()
        ->check(CLI::Range(3, 10001));
    cmd->add_option("--clusters", args->clusters,
                    "cluster the anchors' cells (k-means on the type markers) and align each "
                    "cluster by maps of its own, as CytoNorm does: for a batch effect that differs "
                    "between cell types; 1: every cell by its batch's maps")
        ->capture_default_str()
        ->check(CLI::Range(1, 100));
    cmd->add_option("--save-alignment", args->saveAlignment,
                    "write the learnt alignment (JSON) to apply it to later files of the batches");
    cmd->add_option("--alignment", args->alignment,
                    "apply a saved alignment (from --save-alignment) instead of learning one");
    cmd->add_option("--transform", args->transform,
                    "the scale the quantiles are taken in: default, asinh:COFACTOR, logicle or "
                    "none")
        ->capture_default_str();
    cmd->add_option("--gates", args->gates.gates,
                    "learn from (and measure the gaps on) the cells of one population of these "
                    "gates (Gating-ML, FlowJo workspace or Sepal's): live single cells, no beads; "
                    "every cell is aligned");
    cmd->add_option("--population", args->gates.population,
                    "the population of --gates (its path or id; by default the last of a chain)");
    cmd->add_option("--spillover", args->spillover,
                    "compensate with this spillover matrix file instead of the files' own");
    cmd->add_flag("--quiet,-q", args->quiet, "no summary on stderr");
    cmd->callback([args] { runAlign(*args); });
}

CommandRegistration alignCommand{addAlignCommand};

}  // namespace
}  // namespace sepal::cli
