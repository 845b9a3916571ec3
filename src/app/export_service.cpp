// The export service's files: the events with their coordinates and populations, the model
// (with its populations and gates), the gates, the population and gate counts and the heatmap.
#include <filesystem>
#include <optional>

#include "app/export_service.h"
#include "app/population_service.h"
#include "core/cluster/population_tally.h"
#include "core/common/error.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/population_gates.h"
#include "core/io/fcs_reader.h"
#include "core/io/input_guard.h"
#include "core/model/model_file.h"
#include "core/model/model_panel.h"
#include "core/pipeline/export_files.h"
#include "core/pipeline/samples.h"
#include "core/raster/png.h"

namespace sepal::app {

std::vector<std::string> ExportService::events(const std::string& path,
                                               const ExportOptions& options) const {
    const State& state = this->state();
    const auto& data = state.data;
    const size_t n = data.events();
    if (n == 0) throw InputError("nothing to export: open a file first");
    const auto& xy = m_scheduler.positions();
    if (xy.size() != 2 * n) throw InputError("the picture is not ready yet; try again");
    Matrix coordinates(n, 2);
    std::copy(xy.begin(), xy.end(), coordinates.values.begin());
    PopulationCodes populations;
    for (const auto& g : state.populations.groups) populations.names.push_back(g.name);
    populations.codes.assign(n, -1);
    for (size_t i = 0; i < n && i < state.populations.membership.size(); ++i)
        populations.codes[i] = int32_t(state.populations.membership[i]) - 1;
    ExportSource source;
    source.tables = data.tables;
    // Samples are named as sepal-cli names them (the file name without its extension).
    source.sampleNames = data.sampleNames();
    source.xy = &coordinates;
    source.usedColumns = data.columns;
    source.transformed = &data.points;
    // Only the cells inside the gates are written, as sepal-cli writes them.
    std::vector<io::Table> gatedTables;
    Matrix gatedXy, gatedPoints;
    if (!state.gating.inside.empty()) {
        for (size_t s = 0; s < data.samples.size(); ++s) {
            const auto first = state.gating.inside.begin() + long(data.samples[s].first);
            gatedTables.push_back(io::keepRows(
                data.tables[s], std::vector<uint8_t>(first, first + long(data.samples[s].count))));
        }
        gatedXy = gatedRows(coordinates, state.gating);
        gatedPoints = gatedRows(data.points, state.gating);
        PopulationCodes kept{populations.column, populations.names, {}};
        for (size_t i = 0; i < n; ++i)
            if (state.gating.contains(i)) kept.codes.push_back(populations.codes[i]);
        populations = std::move(kept);
        source.tables = gatedTables;
        source.xy = &gatedXy;
        source.transformed = &gatedPoints;
    }
    // No populations brushed: the file has no population column, as sepal-cli writes it.
    if (!populations.names.empty()) source.populations = &populations;
    // AnnData lists each gate's membership as a column.
    if (!state.gating.gates.empty()) source.gates = &state.gating.gates.tree;
    // The files the data came from are never written over.
    std::vector<std::string> inputs;
    for (const auto& sample : data.samples) inputs.push_back(sample.path);
    std::vector<std::string> written = writeExport(path, source, options, inputs);
    // Beside an FCS file, a FlowJo workspace: the gates, and under the embedded population each
    // population a gate on the population parameter, so FlowJo shows them by name.
    if (exportFormatOf(path) == ExportFormat::Fcs && !options.perPopulation &&
        (!state.gating.gates.empty() || !populations.names.empty())) {
        const std::string workspace =
            std::filesystem::path(path).replace_extension(".wsp").string();
        io::refuseOverwritingInput(workspace, inputs, "the FlowJo workspace beside the export");
        // The matrix the written file carries is the sample's own (FlowJo's Acquisition-defined).
        const io::FcsFileInfo exported = io::inspectFcs(path);
        std::optional<io::Spillover> matrix;
        if (!exported.datasets.empty()) matrix = exported.datasets.front().spillover;
        writeFlowJoWorkspace(
            workspace,
            withPopulationGates(state.gating.gates, populations.column, populations.names),
            {{path, state.gating.count(n), matrix.has_value(), matrix}});
        written.push_back(workspace);
        log(LogEntry::Info, "FlowJo workspace with the gates and populations: " + workspace);
    }
    return written;
}

void ExportService::gates(const std::string& path) const {
    const State& state = this->state();
    if (state.gating.gates.empty())
        throw InputError("no gates to export: draw some (Biaxial) or open a gates file");
    std::vector<std::string> inputs;
    for (const auto& sample : state.data.samples) inputs.push_back(sample.path);
    io::refuseOverwritingInput(path, inputs, "the gates file");
    writeGateSelection(path, state.gating.gates, inputs);
}

void ExportService::model(const std::string& path) const {
    const State& state = this->state();
    if (state.data.events() == 0) throw InputError("nothing to export: open a file first");
    const ModelLabels labels = m_populations.ofModel();
    saveModel(
        path, state.model, state.data.columns, state.pipeline.toJson(), state.embed,
        labels.populations, state.gating.gates, labels.regions,
        state.data.namingInput(state.training.markerClasses).classes,
        m_populations.stateColumns().pipeline.toJson(),
        columnMarkers(state.data.tables.front(), state.data.columns),
        columnMarkers(state.data.tables.front(), m_populations.stateColumns().pipeline.columns()));
    // The picture keeps each cell's population; the model labels by where cells land now. They
    // part when the landmarks were trained, moved, added or removed after the populations were
    // made, and the user should know before applying the model to a cohort.
    if (labels.disagreeing > 0)
        log(LogEntry::Warning,
            path + ": the model labels " + std::to_string(labels.disagreeing) +
                " cells otherwise than the picture: populations made before the landmarks "
                "were trained, added or removed, or of unknown making (an older session), "
                "follow the landmarks now; open the model again to see its labels");
}

std::vector<std::string> ExportService::counts(const std::string& folder) const {
    const State& state = this->state();
    const auto& data = state.data;
    const bool populations = !state.populations.groups.empty();
    const bool gates = !state.gating.gates.empty();
    if (!populations && !gates)
        throw InputError(
            "nothing to count: make populations (From landmarks, or the lasso) or gates "
            "(Biaxial)");
    std::vector<std::string> inputs;
    for (const auto& sample : data.samples) inputs.push_back(sample.path);
    const auto inFolder = [&](const char* name) {
        return (std::filesystem::path(folder) / name).string();
    };
    const std::string gateCounts = inFolder("gate_counts.csv");
    const std::string counts = inFolder("populations.csv");
    const std::string medians = inFolder("medians.csv");
    const std::string perSample = inFolder("sample_medians.csv");
    // Every name checked before anything is written.
    if (gates) io::refuseOverwritingInput(gateCounts, inputs, "gate_counts.csv");
    if (populations) {
        io::refuseOverwritingInput(counts, inputs, "populations.csv");
        io::refuseOverwritingInput(medians, inputs, "medians.csv");
        io::refuseOverwritingInput(perSample, inputs, "sample_medians.csv");
    }
    std::vector<std::string> written;
    if (gates) {
        writeGateCounts(gateCounts, state.gating.bySample);
        written.push_back(gateCounts);
    }
    if (populations) {
        const PopulationTally tally = m_populations.tally(true);
        tally.writeCounts(counts);
        tally.writeMedians(medians);
        tally.writeSampleMedians(perSample);
        written.insert(written.end(), {counts, medians, perSample});
    }
    return written;
}

void ExportService::heatmap(const std::string& path, bool light) const {
    const State& state = this->state();
    if (state.populations.groups.empty())
        throw InputError("no populations for a heatmap: make some (From landmarks, or the lasso)");
    std::vector<std::string> inputs;
    for (const auto& sample : state.data.samples) inputs.push_back(sample.path);
    io::refuseOverwritingInput(path, inputs, "the heatmap");
    const Heatmap heat = m_populations.heatmap();
    raster::writePng(path, renderHeatmap(heat, color::Colormap::Viridis, light));
}

}  // namespace sepal::app
