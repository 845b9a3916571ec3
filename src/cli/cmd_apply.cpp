// sepal-cli apply: project many files through a saved landmark model, one output per file.

#include <omp.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>

#include "backend/backends.h"
#include "cli/cli_export.h"
#include "cli/cli_gates.h"
#include "cli/cli_populations.h"
#include "cli/cli_progress.h"
#include "cli/cli_ranks.h"
#include "cli/command_registry.h"
#include "cli/study_options.h"
#include "core/cluster/batch_bound.h"
#include "core/cluster/metaclusters.h"
#include "core/cluster/population_tally.h"
#include "core/common/error.h"
#include "core/common/fnv_hash.h"
#include "core/common/stopwatch.h"
#include "core/common/text.h"
#include "core/gate/gate_counts_table.h"
#include "core/io/atomic_file.h"
#include "core/io/input_guard.h"
#include "core/model/model_file.h"
#include "core/model/model_panel.h"
#include "core/pipeline/input_blocks.h"
#include "core/pipeline/prepare.h"
#include "core/pipeline/sample_metadata.h"
#include "core/pipeline/samples.h"
#include "core/raster/png.h"
#include "core/transform/channel_label.h"
#include "core/transform/pipeline.h"

namespace sepal::cli {
namespace {

struct ApplyArgs {
    std::string model;
    std::vector<std::string> inputs;
    std::vector<std::string> samples;  // each input's sample name (sampleNames), set by runApply
    std::string outDir;
    std::string format = "csv";
    std::string backend = "cpu";
    std::string sampleColumn = "sample";
    std::string spillover;  // --spillover: the matrix every input is compensated with
    ExportOptions exports;
    int threads = 0;
    bool force = false;
    std::string heatmap;
    bool heatmapLight = false;  // --heatmap on a white background
    GateOptions gates;
    size_t blockEvents = 100000;
    int workers = 0;  // files in flight at once (0: by the threads and GPUs, see applyFiles)
    bool quiet = false;
    bool timings = false;
    bool acceptOtherMarkers = false;  // a panel that differs from the model's: a warning only
    StudyOptions study;  // --metadata --design --contrast: compare the conditions after
    std::string batch;   // --batch: the metadata column checked for populations of one batch
};

/// Seconds spent in each stage of apply, summed over its lanes (--timings).
struct ApplyTimes {
    double waitRead = 0;    ///< waiting for the next block to be read
    double transform = 0;   ///< the transform pipeline
    double project = 0;     ///< the projection (with each cell's nearest landmark)
    double label = 0;       ///< populations and their tally
    double waitWrite = 0;   ///< waiting for the last block's write to finish
    double write = 0;       ///< writing blocks (on the writing thread, beside the work)
    double commit = 0;      ///< finishing each output file (beside the next file's work)
    double waitCommit = 0;  ///< waiting for the last file's finishing
    double setup = 0;       ///< the model and the checks (not summed)
    double files = 0;       ///< from the first lane's start to the last one's end (not summed)
    /// Adds another lane's times.
    void add(const ApplyTimes& o) {
        waitRead += o.waitRead, transform += o.transform, project += o.project;
        label += o.label, waitWrite += o.waitWrite, write += o.write, commit += o.commit;
        waitCommit += o.waitCommit;
    }
};

/// True when `output` exists and was written after `input` was last changed.
bool newerThan(const std::string& output, const std::string& input) {
    std::error_code ec1, ec2;
    const auto out = std::filesystem::last_write_time(output, ec1);
    const auto in = std::filesystem::last_write_time(input, ec2);
    return !ec1 && !ec2 && out > in;
}

/// A 64-bit FNV-1a digest of a file's bytes ("" when it cannot be read), in hexadecimal.
std::string fileDigest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (path.empty() || !in) return "";
    uint64_t h = kFnvOffset;
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        h = fnv1a(std::string_view(buffer, size_t(in.gcount())), h);
        if (!in) break;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

/// What made an output besides its input: the model's bytes and the options that change what
/// a file holds. An output is up to date only when the stamp written beside it says the same
/// (a newer output made by another model, or with other --values or --channels, was kept and
/// contradicted populations.csv).
std::string applyStamp(const ApplyArgs& a) {
    return "model " + fileDigest(a.model) + "\nvalues " + std::to_string(int(a.exports.values)) +
           "\nall-channels " + std::to_string(a.exports.allChannels) + "\ngates " +
           fileDigest(a.gates.gates) + "\npopulation " + a.gates.population + "\nsample-column " +
           a.sampleColumn + "\nspillover " + fileDigest(a.spillover) + "\n";
}

/// The stamp beside output `out` (a hidden file in its folder).
std::string stampPath(const std::string& out) {
    const std::filesystem::path p(out);
    return (p.parent_path() / ("." + p.filename().string() + ".made")).string();
}

/// True when the stamp beside `out` holds `stamp`.
bool stampedWith(const std::string& out, const std::string& stamp) {
    std::ifstream in(stampPath(out), std::ios::binary);
    if (!in) return false;
    const std::string held((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return held == stamp;
}

/// The output for each input: SAMPLE.FORMAT in the folder, by the input's sample name (numbered
/// when two inputs in different folders share a file name, so that none overwrites another and
/// each file's sample column and populations.csv rows name it as its file does). The same on
/// every rank.
std::vector<std::string> outputPaths(const ApplyArgs& a) {
    std::vector<std::string> outs;
    for (const std::string& sample : a.samples)
        outs.push_back((std::filesystem::path(a.outDir) / (sample + "." + a.format)).string());
    return outs;
}

/// The populations counted over this rank's files, shared by its lanes (merging lanes' tallies
/// took half a second: 100,000 kept rows a population, copied twice).
struct SharedTally {
    std::mutex lock;
    std::optional<PopulationTally> tally;  // made with the first labelled block
    size_t namedBy = SIZE_MAX;             // the file whose markers name the tally's columns
    std::optional<GateCountSums> gates;    // each file's gate counts, when the model has gates
};

/// One lane of apply: the model and where its files' populations are counted.
struct ApplyRun {
    const ApplyArgs& args;
    const LoadedModel& loaded;
    const TransformPipeline& pipeline;
    const TransformPipeline& statePipeline;  // state markers for the medians (may have none)
    Backend& backend;
    SharedTally& counted;
    std::vector<std::string> readFiles{};        // never written over
    std::vector<int32_t> groupOfLandmark{};      // population per landmark
    std::vector<std::string> populationNames{};  // the model's
    std::string prefix{};                        // "rank R: " under mpirun
    std::string stamp{};                         // applyStamp: what makes the outputs
    ApplyTimes times{};                          // this lane's
    // The last output's finishing (FCS: its TEXT; flushed to disk, renamed into place), which
    // runs beside the next file's work: on a disk the flush takes as long as the file's work.
    std::future<void> finishing{};

    /// Waits for the last output to be finished; rethrows its error.
    void waitFinishing() {
        if (!finishing.valid()) return;
        const auto t = StageClock::now();
        finishing.get();
        times.waitCommit += secondsSince(t);
    }
};

/// A block's events with their coordinates and transformed values, on their way to the output.
struct EmbeddedBlock {
    io::Table table;
    Matrix xy, points;
};

/// Labels the table's cells with the model's populations and counts them with their values
/// (points, then the state columns; the block's first cell is cell `firstCell` of its file);
/// returns the codes. The cells' layout positions (xy)
/// matter only to a model whose populations were drawn as regions. nearest: each cell's
/// nearest landmark when the projection found it (else empty: searched here).
std::vector<int32_t> labelAndCount(ApplyRun& run, size_t f, const io::Table& table,
                                   const Matrix& points, const Matrix& statePoints,
                                   const Matrix& xy, const std::vector<uint32_t>& nearest,
                                   size_t firstCell) {
    const PopulationRegions& regions = run.loaded.regions;
    const auto& groups = regions.empty() ? run.groupOfLandmark : regions.labelOfLandmark;
    auto codes = nearest.empty()
                     ? groupsOfPoints(points, run.loaded.model, groups, *run.backend.search)
                     : groupsOfNearest(points, nearest, groups);
    if (!regions.empty()) codes = labelCells(regions, codes, xy.data());
    const std::lock_guard<std::mutex> hold(run.counted.lock);
    std::optional<PopulationTally>& tally = run.counted.tally;
    // The columns are named after the rank's first file, whichever lane counted first (files
    // may name a marker differently).
    if (f < run.counted.namedBy) {
        std::vector<std::string> markers = markerNames(table, run.pipeline.columns());
        for (auto& m : markerNames(table, run.statePipeline.columns())) markers.push_back(m);
        if (tally)
            tally->renameMarkers(std::move(markers));
        else
            tally.emplace(run.populationNames, std::move(markers), 1);
        run.counted.namedBy = f;
    }
    // The state markers after the embedded columns (the block as it is when there are none).
    const std::string& sample = run.args.samples[f];
    if (statePoints.cols == 0)
        tally->add(f, sample, codes, points, firstCell);
    else
        tally->add(f, sample, codes, withStateColumns(points, statePoints), firstCell);
    return codes;
}

/// Projects input `f` a block of events at a time and writes its output (or only counts it when
/// the output is up to date); returns how many files it wrote. Memory holds one block of an FCS
/// input; other formats, and one file per population, are read whole.
size_t applyOne(ApplyRun& run, size_t f, const std::string& out) {
    const ApplyArgs& a = run.args;
    const std::string& path = a.inputs[f];
    note(a.quiet, run.prefix + "[" + std::to_string(f + 1) + "/" + std::to_string(a.inputs.size()) +
                      "] " + path);
    // Resuming: an output newer than its input and the model is left as it is (the
    // populations still count its cells).
    const bool upToDate = !a.force && !a.exports.perPopulation && newerThan(out, path) &&
                          newerThan(out, a.model) && stampedWith(out, run.stamp);
    const bool counted = !run.loaded.populations.empty();
    if (upToDate && !counted) {
        note(a.quiet, run.prefix + out + " is up to date: skipped (--force writes it again)");
        return 0;
    }
    InputBlocks blocks(path, a.exports.perPopulation ? SIZE_MAX : a.blockEvents);
    std::unique_ptr<ExportStream> stream;
    if (!upToDate && !a.exports.perPopulation) {
        stream = std::make_unique<ExportStream>(out, a.exports, run.readFiles);
        if (a.exports.values == ExportValues::Transformed &&
            exportFormatOf(out) == ExportFormat::Fcs)
            note(a.quiet, out + ": FCS holds the raw values; --values transformed applies to CSV");
    }
    size_t events = 0, kept = 0, nonFinite = 0, written = 0;
    bool checked = false;
    // Reading the next block and writing the last one overlap the work on this one. The stages
    // keep their order, so the bytes are those of one block after another. The helper threads
    // use as many OpenMP threads as --threads gave this one.
    const int threads = omp_get_max_threads();
    const auto nextBlock = [&blocks, threads] {
        omp_set_num_threads(threads);
        return blocks.next();
    };
    // Declared after what they use, so that leaving early waits for them first.
    std::future<std::optional<io::Table>> reading = std::async(std::launch::async, nextBlock);
    std::future<void> writing;
    ApplyTimes& times = run.times;
    for (;;) {
        auto t = StageClock::now();
        std::optional<io::Table> block = reading.get();
        times.waitRead += secondsSince(t);
        if (!block) break;
        reading = std::async(std::launch::async, nextBlock);
        io::Table& table = *block;
        events += table.events();
        const size_t firstCell = kept;
        // The model's gates choose the cells, as they chose those it was trained on; with
        // gate_counts.csv to write, every gate's events are counted in the same pass.
        std::vector<GateCount> blockGateCounts;
        kept +=
            keepGatedCells(table, run.loaded.gates, run.counted.gates ? &blockGateCounts : nullptr);
        if (run.counted.gates) {
            const std::lock_guard<std::mutex> hold(run.counted.lock);
            run.counted.gates->add(f, blockGateCounts);
        }
        if (!checked) {
            // The columns as the pipeline finds them (names, markers, FlowJo's "Comp-" columns
            // of a model that compensates): which of the inputs lacks which.
            if (const std::vector<std::string> missing = run.pipeline.missingColumns(table);
                !missing.empty())
                throw InputError(path + ": the data lacks columns the model was trained on: " +
                                 commaJoined(missing) + " (the data has: " + channelChoices(table) +
                                 "); rename the columns or use a model trained on these ones");
            try {
                checkModelPanel(run.loaded, table, path);
            } catch (const InputError& e) {
                if (!a.acceptOtherMarkers) throw;
                note(false, std::string("warning (--accept-other-markers): ") + e.what());
            }
            checked = true;
        }
        t = StageClock::now();
        Matrix points = run.pipeline.apply(table);
        times.transform += secondsSince(t);
        // An up-to-date output is only counted; populations drawn as regions need the layout.
        const bool projected = !upToDate || !run.loaded.regions.empty();
        Matrix xy(projected ? points.rows : 0, 2);
        // The projection's k-NN knows each cell's nearest landmark: labelling takes it from
        // there when the projector keeps it.
        std::vector<uint32_t> nearest(projected && counted ? points.rows : 0);
        t = StageClock::now();
        if (projected) {
            bool found = false;
            nonFinite += run.backend.projector
                             ->projectFindingNearest(points.data(), points.rows, points.cols,
                                                     run.loaded.model, run.loaded.params, xy.data(),
                                                     nearest.data(), found)
                             .nonFinitePoints;
            if (!found) nearest.clear();
        }
        times.project += secondsSince(t);
        t = StageClock::now();
        std::vector<int32_t> codes;
        if (counted) {
            const Matrix statePoints =
                run.statePipeline.steps.empty() ? Matrix() : run.statePipeline.apply(table);
            codes = labelAndCount(run, f, table, points, statePoints, xy, nearest, firstCell);
        }
        times.label += secondsSince(t);
        if (upToDate) continue;
        if (counted) setPopulationColumn(table, run.populationNames, codes);
        // Each output names its sample, so the files can be pooled later.
        io::LabelColumn sample{a.sampleColumn, {a.samples[f]}, {}};
        sample.codes.assign(table.events(), 0);
        std::erase_if(table.labels,
                      [&](const io::LabelColumn& l) { return l.name == a.sampleColumn; });
        table.labels.push_back(std::move(sample));
        if (!stream) {
            t = StageClock::now();
            written += writeEmbedded(out,
                                     {&table, &xy, run.pipeline.columns(), &points, a.sampleColumn,
                                      run.readFiles, gateTree(run.loaded.gates)},
                                     a.exports, a.quiet)
                           .size();
            times.write += secondsSince(t);
            continue;
        }
        auto done = std::make_shared<EmbeddedBlock>(
            EmbeddedBlock{std::move(table), std::move(xy), std::move(points)});
        t = StageClock::now();
        if (writing.valid()) writing.get();
        times.waitWrite += secondsSince(t);
        // Only the writing thread adds to times.write (one write of a lane at a time); it is
        // read after the last one has finished.
        writing = std::async(std::launch::async, [&stream, &run, &a, done, threads, &times] {
            omp_set_num_threads(threads);
            const auto start = StageClock::now();
            appendEmbedded(*stream, {&done->table, &done->xy, run.pipeline.columns(), &done->points,
                                     a.sampleColumn, run.readFiles, gateTree(run.loaded.gates)});
            times.write += secondsSince(start);
        });
    }
    auto t = StageClock::now();
    if (writing.valid()) writing.get();
    times.waitWrite += secondsSince(t);
    if (counted) {
        // The file's medians are taken now; its kept values need not wait for the whole cohort.
        const std::lock_guard<std::mutex> hold(run.counted.lock);
        if (run.counted.tally) run.counted.tally->finishSample(f);
    }
    if (!run.loaded.gates.empty())
        note(a.quiet, run.prefix + path + ": " + gatedSummary(kept, events, run.loaded.gates));
    if (nonFinite > 0)
        note(a.quiet, run.prefix + path + ": " + std::to_string(nonFinite) +
                          " events had non-finite values");
    if (upToDate) {
        note(a.quiet,
             run.prefix + out + " is up to date: counted, not written again (--force writes it)");
        return 0;
    }
    if (stream) {
        // One finishing at a time: the last file's is done before this one's starts.
        run.waitFinishing();
        run.finishing =
            std::async(std::launch::async, [s = std::move(stream), &times, out, stamp = run.stamp] {
                const auto start = StageClock::now();
                s->commit();
                // The stamp after the output: a run stopped between them writes it again.
                io::writeFileAtomically(stampPath(out), [&](std::ostream& o) { o << stamp; });
                times.commit += secondsSince(start);
            });
        ++written;
    }
    return written;
}

/// The paths of what apply writes over all files.
std::filesystem::path countsPath(const ApplyArgs& a) {
    return std::filesystem::path(a.outDir) / "populations.csv";
}
std::filesystem::path mediansPath(const ApplyArgs& a) {
    return std::filesystem::path(a.outDir) / "medians.csv";
}
std::filesystem::path sampleMediansPath(const ApplyArgs& a) {
    return std::filesystem::path(a.outDir) / "sample_medians.csv";
}
std::filesystem::path gateCountsPath(const ApplyArgs& a) {
    return std::filesystem::path(a.outDir) / "gate_counts.csv";
}

/// Checks the arguments and the model, then projects and writes this rank's files; returns the
/// tally of their populations (none when the model has none) and adds the files written and the
/// lanes' times; `classes` gets the marker classes of the tally's columns, `gateSums` the gate
/// counts of this rank's files (every input's row, the others' zero) when the model has gates.
std::optional<PopulationTally> applyFiles(const ApplyArgs& a, const Ranks& ranks, size_t& files,
                                          ApplyTimes& times, std::vector<MarkerClass>& classes,
                                          std::optional<GateCountSums>& gateSums) {
    const auto start = StageClock::now();
    setThreads(a.threads);
    if (a.format != "csv" && a.format != "fcs" && a.format != "h5ad")
        throw InputError("--format " + a.format + ": use csv, fcs or h5ad");
    if (a.format == "h5ad") exportFormatOf("check.h5ad");  // refused early without HDF5
    LoadedModel loaded = loadModel(a.model);
    // --gates and --population choose the cells instead of the model's own gates.
    loaded.gates = chooseGates(a.gates, loaded.gates, a.inputs);
    TransformPipeline pipeline = TransformPipeline::fromJson(loaded.transform);
    if (pipeline.columns() != loaded.columns)
        throw InputError(a.model + ": the transform's columns differ from the model's; re-save it");
    TransformPipeline statePipeline = loaded.stateTransform.is_object()
                                          ? TransformPipeline::fromJson(loaded.stateTransform)
                                          : TransformPipeline();
    if (!a.spillover.empty()) {
        // The matrix replaces the one the model compensates with (the files' own, or one given
        // when it was made); a model made on uncompensated values would misplace compensated
        // cells.
        if (pipeline.compensation.source == CompensationStep::Source::None)
            throw InputError("--spillover: the model " + a.model +
                             " was made without compensation, so its landmarks expect "
                             "uncompensated values; leave --spillover out");
        useSpilloverFile(pipeline, a.spillover);
        if (statePipeline.compensation.source != CompensationStep::Source::None)
            statePipeline.compensation = pipeline.compensation;
    }
    classes = tallyClasses(loaded);
    std::error_code ec;
    std::filesystem::create_directories(a.outDir, ec);
    if (ec) throw InputError("--out-dir " + a.outDir + ": cannot create it (" + ec.message() + ")");
    std::vector<std::string> readFiles = a.inputs;
    readFiles.push_back(a.model);
    readFiles.push_back(a.gates.gates);
    readFiles.push_back(a.spillover);
    io::refuseOverwritingInput(a.gates.writeGates, readFiles, "--write-gates");
    if (!a.heatmap.empty() && loaded.populations.empty())
        throw InputError("--heatmap: the model " + a.model +
                         " has no populations (embed --metaclusters K makes them)");
    io::refuseOverwritingInput(a.heatmap, readFiles, "--heatmap");
    if (!a.study.design.empty()) {
        if (!studyRunner())
            throw InputError(
                "--design: this sepal-cli was built without the statistics "
                "(Eigen or Boost.Math missing)");
        if (loaded.populations.empty())
            throw InputError("--design: the model " + a.model +
                             " has no populations to compare (embed --metaclusters K makes them)");
    }
    // A --batch column the metadata lacks is said before the files are projected.
    if (!a.batch.empty()) readSampleMetadata(a.study.metadata).columnIndex(a.batch, "--batch");
    if (!loaded.gates.empty())
        io::refuseOverwritingInput(gateCountsPath(a).string(), readFiles,
                                   "gate_counts.csv in --out-dir");
    if (!loaded.populations.empty()) {
        io::refuseOverwritingInput(countsPath(a).string(), readFiles,
                                   "populations.csv in --out-dir");
        io::refuseOverwritingInput(mediansPath(a).string(), readFiles, "medians.csv in --out-dir");
        io::refuseOverwritingInput(sampleMediansPath(a).string(), readFiles,
                                   "sample_medians.csv in --out-dir");
    }
    const std::vector<std::string> outs = outputPaths(a);
    std::vector<size_t> mine;  // this rank's files
    for (size_t f = 0; f < a.inputs.size(); ++f)
        if (ranks.owns(f)) mine.push_back(f);
    // Files in flight at once, the lanes taking turns over this rank's GPUs (under mpirun each
    // rank of a machine has its share of them), sharing the CPU threads. On the GPU, a lane for
    // every 4 CPU threads, two to four (or one per GPU when there are more): the files' reading,
    // transforming, counting and writing, on the CPU, overlap each other and the projection.
    // 8 files of 1M cells on one H200, 32 cores: 3.06 s with one lane, 1.91 with two, 1.42 with
    // four, 1.40 with eight; 32 files on one H100, 16 cores: 3.85-4.09 s with two lanes,
    // 2.76-2.88 with four (on its disk 4.7-6.1 s and 3.7-3.9).
    const bool cpuOnly = a.backend == "cpu" || a.backend == "reference";
    const size_t gpus = cpuOnly ? 0 : gpuCount();
    const std::vector<int> rankGpus = ranks.gpusOfThisRank(gpus);
    const size_t gpuLanes = std::clamp<size_t>(size_t(omp_get_max_threads()) / 4, 2, 4);
    size_t lanes = a.workers > 0       ? size_t(a.workers)
                   : !rankGpus.empty() ? std::max(gpuLanes, rankGpus.size())
                                       : 1;
    lanes = std::max<size_t>(1, std::min(lanes, mine.size()));
    const int threads = std::max(1, omp_get_max_threads() / int(lanes));
    SharedTally counted;
    if (!loaded.gates.empty()) counted.gates.emplace(loaded.gates.tree, a.inputs.size());
    std::vector<ApplyTimes> laneTimes(lanes);
    const std::string stamp = applyStamp(a);  // read once: the model's bytes for every lane
    std::vector<size_t> written(lanes, 0);
    std::vector<std::exception_ptr> errors(lanes);
    std::atomic<bool> failed{false};
    const auto lane = [&](size_t w) {
        try {
            omp_set_num_threads(threads);
            BackendOptions options;
            if (!rankGpus.empty()) options.device = rankGpus[w % rankGpus.size()];
            Backend backend = makeBackend(a.backend, options);
            ApplyRun run{a, loaded, pipeline, statePipeline, backend, counted};
            run.stamp = stamp;
            run.readFiles = readFiles;
            // The model's populations label every cell, and are counted over all inputs.
            run.groupOfLandmark = groupsOfLandmarks(loaded.populations, loaded.model.count());
            run.populationNames = populationNames(loaded.populations);
            if (ranks.size() > 1) run.prefix = "rank " + std::to_string(ranks.rank()) + ": ";
            for (size_t j = w; j < mine.size() && !failed; j += lanes)
                written[w] += applyOne(run, mine[j], outs[mine[j]]);
            run.waitFinishing();
            laneTimes[w] = run.times;
        } catch (...) {
            errors[w] = std::current_exception();
            failed = true;
        }
    };
    times.setup = secondsSince(start);
    const auto lanesStart = StageClock::now();
    if (lanes == 1) {
        lane(0);
    } else {
        std::vector<std::thread> running;
        for (size_t w = 0; w < lanes; ++w) running.emplace_back(lane, w);
        for (auto& t : running) t.join();
    }
    times.files = secondsSince(lanesStart);
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    for (size_t w = 0; w < lanes; ++w) {
        files += written[w];
        times.add(laneTimes[w]);
    }
    if (!a.gates.writeGates.empty() && ranks.root()) {
        // Beside FCS outputs (which carry the population parameter) the populations are gates.
        const bool fcsOut = a.format == "fcs" && !a.exports.perPopulation;
        writeGatesBack(a.gates, loaded.gates,
                       fcsOut ? populationNames(loaded.populations) : std::vector<std::string>{},
                       fcsOut ? outputPaths(a) : a.inputs);
        ++files;
    }
    // The counts and medians do not depend on which lane (or rank) did a file.
    gateSums = std::move(counted.gates);
    return std::move(counted.tally);
}

/// One line on stderr: where apply's time went on this rank (--timings).
void printTimes(const Ranks& ranks, const ApplyTimes& t, double merge, double tables,
                double total) {
    std::fprintf(stderr,
                 "%stimings, seconds: setup %.3f; files %.3f, the lanes' sums: waiting to read "
                 "%.3f, transform %.3f, project %.3f, label %.3f, write %.3f (beside the work; "
                 "waiting for it %.3f), finishing files %.3f (beside the work; waiting for it "
                 "%.3f); merging ranks %.3f; counts and medians %.3f; total %.3f\n",
                 ranks.size() > 1 ? ("rank " + std::to_string(ranks.rank()) + ": ").c_str() : "",
                 t.setup, t.files, t.waitRead, t.transform, t.project, t.label, t.write,
                 t.waitWrite, t.commit, t.waitCommit, merge, tables, total);
}

/// Warns of the populations that lie in one batch of the metadata's column `batch` (by default
/// one called batch, any case; none, no check), as the app's Batches window lists them: a batch
/// effect to align before they are compared.
void warnOfBatchBound(const PopulationTally& tally, const std::string& metadataPath,
                      const std::string& batch) {
    const SampleMetadata metadata = readSampleMetadata(metadataPath);
    const std::string column = batch.empty() ? metadata.batchColumn() : batch;
    if (column.empty()) return;
    const size_t c = metadata.columnIndex(column, "--batch");
    const auto bound = batchBoundPopulations(
        tally.counts(), [&](const std::string& s) { return metadata.valueOf(s, c); });
    if (bound.empty()) return;
    std::string list;
    for (const auto& b : bound)
        list += (list.empty() ? "" : "; ") + b.population + " (" + b.batch + ")";
    warn(std::to_string(bound.size()) + " population(s) lie in one batch of " + metadataPath +
         "'s " + column + " column, each " + std::to_string(int(kBatchBoundFold)) +
         " times as frequent there as elsewhere or more: " + list +
         ". A batch effect may have made them; align the batches (sepal-cli "
         "align) and train again");
}

void runApply(const ApplyArgs& a) {
    const auto start = StageClock::now();
    const Ranks ranks;
    std::optional<PopulationTally> tally;
    size_t files = 0;
    ApplyTimes times;
    std::vector<MarkerClass> classes;
    std::optional<GateCountSums> gateSums;
    ranks.together([&] { tally = applyFiles(a, ranks, files, times, classes, gateSums); });
    const auto mergeStart = StageClock::now();
    if (ranks.size() > 1) {
        // Rank 0 merges the other ranks' tallies one at a time (it does file 0, so it has a
        // tally whenever another rank has one); a failure there is reported as any rank's.
        ranks.together([&] {
            // First the bounds of the rows that the merge keeps (a few small sums over the
            // ranks), so that each rank sends only those: rank 0 then takes in about one
            // tally's rows in all, however many ranks there are, instead of one a rank.
            const size_t populations = ranks.maximum(tally ? tally->populationCount() : 0);
            const std::vector<std::vector<uint64_t>> keys =
                tally ? tally->keptKeys() : std::vector<std::vector<uint64_t>>();
            const std::vector<uint64_t> bounds =
                cohortKeyBounds(populations, [&](const std::vector<uint64_t>& at) {
                    return ranks.sumEach(keysAtMost(keys, at));
                });
            // Rank 0 keeps its own tally as it is.
            const std::string mine =
                tally && !ranks.root() ? tally->toBytes(bounds) : std::string();
            ranks.collect(mine, [&](const std::string& bytes) {
                if (&bytes == &mine || bytes.empty()) return;
                if (!tally) throw InputError("rank 0 counted no populations but another rank did");
                tally->merge(bytes);
            });
        });
        // Each rank counted its own files' gates: the sums are the whole cohort's.
        if (gateSums) gateSums->setValues(ranks.sumEach(gateSums->values()));
        files = ranks.sum(files);
        if (!ranks.root()) {
            if (a.timings)
                printTimes(ranks, times, secondsSince(mergeStart), 0, secondsSince(start));
            return;
        }
    }
    const double merge = secondsSince(mergeStart);
    const auto tablesStart = StageClock::now();
    if (gateSums) {
        writeGateCounts(gateCountsPath(a).string(), gateSums->counts(a.samples));
        ++files;
        note(a.quiet, "events per sample and gate: " + gateCountsPath(a).string());
    }
    if (tally) {
        tally->writeCounts(countsPath(a).string());
        tally->writeMedians(mediansPath(a).string());
        tally->writeSampleMedians(sampleMediansPath(a).string());
        files += 3;
        if (!a.heatmap.empty()) {
            // The model's marker classes make the type and state blocks.
            Heatmap heat = tally->heatmap();
            if (classes.size() == heat.columns.size()) heat.classes = classes;
            raster::writePng(a.heatmap,
                             renderHeatmap(heat, color::Colormap::Viridis, a.heatmapLight));
            ++files;
        }
        if (!a.study.metadata.empty()) warnOfBatchBound(*tally, a.study.metadata, a.batch);
        if (!a.study.design.empty()) {
            std::vector<std::string> readFiles = a.inputs;
            readFiles.push_back(a.model);
            studyRunner()(a.study, {countsPath(a).string(), sampleMediansPath(a).string(), a.outDir,
                                    readFiles, a.quiet});
        }
        note(a.quiet, "cells per sample and population: " + countsPath(a).string() +
                          "; medians: " + mediansPath(a).string() + " and per sample " +
                          sampleMediansPath(a).string());
    }
    note(a.quiet, "wrote " + std::to_string(files) + " files to " + a.outDir +
                      (ranks.size() > 1 ? " (" + std::to_string(ranks.size()) + " ranks)" : ""));
    if (a.timings) printTimes(ranks, times, merge, secondsSince(tablesStart), secondsSince(start));
}

void addApplyCommand(CLI::App& app) {
    auto args = std::make_shared<ApplyArgs>();
    CLI::App* cmd = app.add_subcommand(
        "apply",
        "Project files through a saved landmark model (from embed --model); writes one "
        "table per input with EmbedSOM1, EmbedSOM2 and a sample column, and when the model "
        "has populations a population column, populations.csv (cells per sample and "
        "population), medians.csv (population x marker medians) and sample_medians.csv (the "
        "same per sample: what differential state compares). When the model has gates, "
        "only the cells inside them are projected, written and counted, and gate_counts.csv "
        "holds every gate's events per input. With --metadata "
        "--design --contrast, the conditions are then compared as sepal-cli stats does");
    cmd->add_option("--model", args->model, "model file written by embed --model")->required();
    cmd->add_option("inputs", args->inputs, "FCS, CSV/TSV or points JSON files")->required();
    cmd->add_option("--out-dir", args->outDir, "folder for the outputs (created if missing)")
        ->required();
    cmd->add_option("--format", args->format,
                    "csv, fcs or h5ad (AnnData: X the embedded channels as transformed, "
                    "layers['raw'], obsm['X_embedsom'], obs the sample, population and gates)")
        ->capture_default_str();
    addExportOptions(cmd, args->exports);
    cmd->add_option("--sample-column", args->sampleColumn, "name of the sample label column")
        ->capture_default_str();
    cmd->add_option("--spillover", args->spillover,
                    "compensate every input with this spillover matrix file (CSV/TSV with a "
                    "header of channel names, or the $SPILLOVER form) instead of the one the "
                    "model uses: the files' own, or the matrix given when it was made");
    cmd->add_option("--backend", args->backend, "cpu, cuda, auto or reference")
        ->capture_default_str();
    cmd->add_option("--threads", args->threads, "CPU threads (0 = all)")->capture_default_str();
    cmd->add_option("--heatmap", args->heatmap,
                    "also draw the populations x markers heatmap (scaled medians, cell counts) "
                    "as PNG (a model with populations)");
    cmd->add_flag("--heatmap-light", args->heatmapLight,
                  "draw the heatmap on a white background (for print)");
    addGateOptions(cmd, args->gates,
                   "the cells of the chosen population are projected, written and counted "
                   "instead of those of the model's gates");
    cmd->add_option("--block-events", args->blockEvents,
                    "events of an FCS input read, projected and written at a time (memory holds "
                    "three blocks: one read, one projected, one written; a file larger than "
                    "memory works)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option(
           "--workers", args->workers,
           "files projected at once, the lanes taking turns over this rank's GPUs, sharing "
           "the CPU threads (0: on the GPU one for every 4 threads, two to four, or one per "
           "GPU when there are more; one on the CPU)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    addStudyOptions(cmd, args->study, false);
    cmd->add_option("--batch", args->batch,
                    "the --metadata column naming each file's batch, checked for populations "
                    "that lie in one batch (default: a column called batch)")
        ->needs("--metadata");
    cmd->add_flag("--force", args->force,
                  "write every output again (by default an output newer than its input and the "
                  "model is kept)");
    cmd->add_flag("--accept-other-markers", args->acceptOtherMarkers,
                  "apply to a file whose channels carry other markers than the model's (the same "
                  "antibodies named otherwise): a warning instead of a refusal");
    cmd->add_flag("--quiet,-q", args->quiet, "no progress on stderr");
    cmd->add_flag("--timings", args->timings,
                  "print where the time went on stderr (each rank a line, even with --quiet)");
    cmd->callback([args] {
        io::refuseRepeatedInputs(args->inputs);
        args->samples = sampleNames(args->inputs);
        runApply(*args);
    });
}

CommandRegistration applyCommand{addApplyCommand};

}  // namespace
}  // namespace sepal::cli
