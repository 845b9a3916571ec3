// The data service: data files (in the background), tables, model files, spillover matrices,
// sample metadata, the pipeline and the list of recent files.
#include "app/data_service.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "app/population_service.h"
#include "core/common/error.h"
#include "core/gate/gate_file.h"
#include "core/io/input_guard.h"
#include "core/io/spillover_file.h"
#include "core/model/model_file.h"
#include "core/model/model_panel.h"
#include "core/pipeline/aligned_files.h"
#include "core/pipeline/sample_metadata.h"
#include "core/transform/empty_channels.h"

namespace sepal::app {

namespace {
constexpr size_t kMaxRecent = 10;
}  // namespace

void DataService::addRecent(const std::string& path) {
    if (path.starts_with("synthetic:")) return;
    std::string abs = std::filesystem::absolute(path).lexically_normal().string();
    m_recent.erase(std::remove(m_recent.begin(), m_recent.end(), abs), m_recent.end());
    m_recent.insert(m_recent.begin(), abs);
    if (m_recent.size() > kMaxRecent) m_recent.resize(kMaxRecent);
}

void DataService::openFiles(std::vector<std::string> paths, bool addAsSamples) {
    if (paths.empty()) return;
    // Data and its gates given together (a drop of both): the gates follow the data.
    m_gatesAfterLoading.clear();
    if (paths.size() > 1) {
        std::vector<std::string> data;
        for (const std::string& path : paths)
            (isGateFile(path) ? m_gatesAfterLoading : data).push_back(path);
        if (!data.empty())
            paths = std::move(data);
        else
            m_gatesAfterLoading.clear();
    }
    if (paths.size() == 1 && isModelFile(paths.front())) {
        // A model file applies to the open data (the model of sepal-cli embed --model).
        try {
            openModel(paths.front());
        } catch (const std::exception& e) {
            log(LogEntry::Error, std::string("cannot open the model: ") + e.what());
        }
        return;
    }
    if (paths.size() == 1 && isGateFile(paths.front())) {
        // Gates from Gating-ML, FlowJo or Sepal apply to the open data.
        if (state().data.tables.empty())
            log(LogEntry::Error, "open the data first, then its gates (" + paths.front() + ")");
        else
            m_gates.open(paths.front());
        return;
    }
    // A file given twice, or added while it is open, would count its cells twice.
    try {
        io::refuseRepeatedInputs(paths);
        if (addAsSamples)
            for (const std::string& path : paths)
                for (const Sample& s : state().data.samples)
                    if (io::sameFile(path, s.path))
                        throw InputError(path + " is open already: each file is one sample");
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("cannot open: ") + e.what());
        return;
    }
    m_scheduler.startLoading(paths, addAsSamples);
    log(LogEntry::Info, "opening " + std::to_string(paths.size()) + " file(s): " + paths.front() +
                            (paths.size() > 1 ? ", ..." : ""));
}

void DataService::openTables(std::vector<io::Table> tables, bool addAsSamples) {
    if (tables.empty()) return;
    const std::vector<std::string> gates = std::move(m_gatesAfterLoading);
    m_gatesAfterLoading.clear();
    const State& state = this->state();
    // Build the new dataset aside, so a failure leaves what was open untouched.
    Dataset next;
    if (addAsSamples) next.tables = state.data.tables;
    for (auto& t : tables) {
        if (t.events() == 0) throw InputError(t.source + ": holds no events");
        for (const auto& w : t.warnings) log(LogEntry::Warning, t.source + ": " + w);
        next.tables.push_back(std::move(t));
    }
    // Samples of one dataset share the panel, as sepal-cli embed asks.
    checkSamplesPanel(next.tables, "");
    const bool keepPipeline = addAsSamples && !state.data.tables.empty();
    TransformPipeline pipeline = keepPipeline ? state.pipeline : defaultPipeline(next);
    rebuildPoints(next, pipeline);
    // What sepal-cli's embed notes on the same files: channels without any value, left out by
    // the default pipeline, and events with a gap in a used channel.
    if (!keepPipeline) {
        const io::Table all = next.combined();
        for (size_t c : emptyChannels(all)) log(LogEntry::Warning, emptyChannelNote(all, c));
    }
    if (next.incompleteEvents > 0)
        log(LogEntry::Warning,
            std::to_string(next.incompleteEvents) +
                " events have NA, NaN or infinity in a used channel: they are left out of "
                "training and placed at their neighbours");
    if (next.columns.empty())
        throw InputError(next.tables.front().source + ": no channel to use; pick markers");
    for (const auto& t : next.tables) addRecent(t.source);
    m_scheduler.stopModelWork();
    m_scheduler.forgetTrainer();
    m_document.replaceData(std::move(next), std::move(pipeline));
    log(LogEntry::Info, "opened " + std::to_string(state.data.samples.size()) + " sample(s), " +
                            std::to_string(state.data.events()) + " events, " +
                            std::to_string(state.data.columns.size()) + " columns used");
    // The picture a user expects on open: the default recipe, trained at once.
    m_scheduler.runRecipe(false);
    for (const std::string& path : gates) m_gates.open(path);
}

void DataService::openModel(const std::string& path) {
    const State& state = this->state();
    if (state.data.tables.empty()) throw InputError("open a file before opening a model");
    LoadedModel loaded = loadModel(path);
    TransformPipeline pipeline = TransformPipeline::fromJson(loaded.transform);
    if (pipeline.columns() != loaded.columns)
        throw InputError(path + ": the transform's columns differ from the model's; re-save it");
    validateParams(loaded.params, loaded.model.count());
    // A sample whose channels carry other markers than the model's is refused, as sepal-cli
    // apply refuses such a file.
    for (size_t s = 0; s < state.data.tables.size(); ++s)
        checkModelPanel(loaded, state.data.tables[s], path + " on " + state.data.samples[s].path);
    // Try the pipeline on the open data first: a missing channel leaves everything as it was.
    Dataset probe;
    probe.tables = state.data.tables;
    rebuildPoints(probe, pipeline);
    // Its gates too: a model whose gates the data cannot pass is refused whole, as sepal-cli
    // apply refuses such a file.
    if (!loaded.gates.empty()) gatingOf(state.data, loaded.gates);
    m_scheduler.stopModelWork();
    m_document.adoptModel(pipeline, loaded.model, loaded.params, "Open model " + path);
    // The model's gates choose the cells its populations label (a model without gates leaves
    // the user's own as they are).
    if (!loaded.gates.empty()) m_document.setGates(loaded.gates, "Gates of " + path);
    // Its marker classes, as the populations were named with them.
    if (loaded.markerClasses.size() == loaded.columns.size()) {
        TrainingSettings t = this->state().training;
        for (size_t c = 0; c < loaded.columns.size(); ++c)
            t.markerClasses[loaded.columns[c]] = loaded.markerClasses[c];
        m_document.setTraining(t);
    }
    m_populations.adoptModel(loaded, path);
    log(LogEntry::Info,
        "opened model " + path + " (" + std::to_string(loaded.model.count()) + " landmarks)");
}

void DataService::loadSpillover(const std::string& path) {
    const State& state = this->state();
    if (state.data.tables.empty()) {
        log(LogEntry::Error, "open a file before loading a spillover matrix");
        return;
    }
    try {
        TransformPipeline next = state.pipeline;
        next.compensation.source = CompensationStep::Source::Stored;
        next.compensation.spillover = io::readSpilloverFile(path);
        // Check it against the data now, so a matrix of other channels is refused with its names.
        next.apply(state.data.tables.front());
        setPipeline(next);
        log(LogEntry::Info, "compensating with " + path);
    } catch (const std::exception& e) {
        log(LogEntry::Error, e.what());
    }
}

void DataService::openSampleMetadata(const std::string& path) {
    const State& state = this->state();
    try {
        SampleMetadata metadata = readSampleMetadata(path);
        size_t listed = 0;
        for (const auto& s : state.data.samples) listed += metadata.rowOf(s.path) >= 0 ? 1 : 0;
        // A file that lists none of the open samples (another study's, or names spelt
        // otherwise) would only make every sample "(not listed)": refused, what was there kept.
        if (listed == 0 && !state.data.samples.empty()) {
            const auto some = [](const auto& items, const auto& name) {
                std::string out;
                for (size_t i = 0; i < items.size() && i < 3; ++i)
                    out += (i ? ", " : "") + name(items[i]);
                return out + (items.size() > 3 ? ", ..." : "");
            };
            throw InputError(
                path + " lists none of the open samples: its files are " +
                some(metadata.files, [](const std::string& f) { return f; }) +
                "; the open samples are " +
                some(state.data.samples, [](const auto& sample) { return sample.name; }) +
                " (its first column names each file by path, file name or sample name)");
        }
        std::string columns;
        for (const auto& c : metadata.columns) columns += (columns.empty() ? "" : ", ") + c;
        m_document.setMetadata(std::move(metadata));
        log(listed == state.data.samples.size() ? LogEntry::Info : LogEntry::Warning,
            path + ": " + columns + " for " + std::to_string(listed) + " of the " +
                std::to_string(state.data.samples.size()) + " open samples");
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("sample metadata: ") + e.what());
    }
}

void DataService::alignBatches(const std::string& batchColumn, const std::string& anchors,
                               const std::string& folder, size_t clusters) {
    const State& state = this->state();
    try {
        if (state.data.samples.size() < 2)
            throw InputError("open the samples of two batches or more first");
        if (state.metadata.columns.empty())
            throw InputError("open the samples' metadata first: a CSV with each file's batch");
        std::vector<std::string> paths;
        for (const auto& s : state.data.samples) paths.push_back(s.path);
        AlignRequest request;
        request.assignment = assignBatches(state.metadata, paths, batchColumn, anchors);
        if (clusters < 1 || clusters > 100)
            throw InputError("between 1 and 100 clusters, not " + std::to_string(clusters));
        request.clusters = clusters;
        request.folder = folder;
        request.folderOption = "the Batches window's folder";
        request.readFiles = paths;
        request.readFiles.push_back(state.metadata.source);
        // The embedded population's cells teach it (clean-up gates), as sepal-cli align --gates.
        request.gates = state.gating.gates;
        // The scale sepal-cli align takes: the first anchor's markers, as the preset transforms
        // and compensates them, with a spillover matrix loaded here (its --spillover).
        const auto& anchor = request.assignment.anchor;
        request.scale = alignmentScale(
            state.data
                .tables[size_t(std::find(anchor.begin(), anchor.end(), true) - anchor.begin())]);
        if (state.pipeline.compensation.source == CompensationStep::Source::Stored)
            request.scale.compensation = state.pipeline.compensation;
        if (const std::string warning = confoundingWarning(
                confoundedColumns(state.metadata, paths, request.assignment, batchColumn));
            !warning.empty())
            log(LogEntry::Warning, "align batches: " + warning);
        // Checked here, where the user sees the answer at once; the work and the writing go to
        // the worker, on copies of the tables (the open ones may be replaced meanwhile).
        if (m_scheduler.loading()) throw InputError("wait for the files being opened first");
        auto tables = std::make_shared<const std::vector<io::Table>>(state.data.tables);
        m_scheduler.startMaking(
            [tables, paths, request, result = m_alignmentGaps] {
                try {
                    const AlignedSamples aligned = alignSamples(*tables, paths, request);
                    std::vector<BatchGap> gaps = aligned.gaps;
                    std::sort(gaps.begin(), gaps.end(),
                              [](const auto& a, const auto& b) { return a.before > b.before; });
                    {
                        std::lock_guard lock(result->mutex);
                        result->gaps = std::move(gaps);
                    }
                    return MadeFiles{aligned.paths, aligned.summary() +
                                                        "; opened in place of the originals, "
                                                        "which are as they were"};
                } catch (const std::exception& e) {
                    throw InputError(std::string("align batches: ") + e.what());
                }
            },
            "Aligning batches into " + folder);
        log(LogEntry::Info,
            "aligning " + std::to_string(paths.size()) + " samples' batches into " + folder);
    } catch (const std::exception& e) {
        log(LogEntry::Error, std::string("align batches: ") + e.what());
    }
}

std::vector<BatchGap> DataService::lastAlignmentGaps() const {
    std::lock_guard lock(m_alignmentGaps->mutex);
    return m_alignmentGaps->gaps;
}

void DataService::cancelLoading() {
    m_scheduler.cancelLoading();
}

void DataService::setPipeline(const TransformPipeline& pipeline) {
    if (!m_document.acceptsPipeline(pipeline)) return;
    m_scheduler.stopModelWork();
    // The landmarks of the old space mean nothing in the new one: train the recipe again.
    if (m_document.setPipeline(pipeline)) m_scheduler.runRecipe(true);
}

}  // namespace sepal::app
