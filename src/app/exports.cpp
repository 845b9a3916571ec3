// Exports of the workspace: the events with their coordinates and populations, the model (with
// its populations), and the heatmap.
#include <algorithm>
#include <filesystem>

#include "app/workspace.h"
#include "core/cluster/population_tally.h"
#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/model/model_file.h"
#include "core/pipeline/export_files.h"
#include "core/pipeline/samples.h"
#include "core/raster/png.h"

namespace sepal::app {

std::vector<std::string> Workspace::exportEvents(const std::string& path,
                                                 const ExportOptions& options) const {
    const State& state = m_document.state();
    const auto& data = state.data;
    const size_t n = data.events();
    if (n == 0) throw InputError("nothing to export: open a file first");
    const auto& xy = positions();
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
    for (const auto& s : data.samples) source.sampleNames.push_back(s.name);
    source.xy = &coordinates;
    source.usedColumns = data.columns;
    source.transformed = &data.points;
    // No populations brushed: the file has no population column, as sepal-cli writes it.
    if (!populations.names.empty()) source.populations = &populations;
    // The files the data came from are never written over.
    std::vector<std::string> inputs;
    for (const auto& sample : data.samples) inputs.push_back(sample.path);
    return writeExport(path, source, options, inputs);
}

void Workspace::exportModel(const std::string& path) const {
    const State& state = m_document.state();
    if (state.data.events() == 0) throw InputError("nothing to export: open a file first");
    saveModel(path, state.model, state.data.columns, state.pipeline.toJson(), state.embed,
              modelPopulations());
}

PopulationTally Workspace::populationTally(bool withValues) const {
    const State& state = m_document.state();
    const auto& data = state.data;
    std::vector<std::string> names;
    for (const auto& g : state.populations.groups) names.push_back(g.name);
    // The same tally sepal-cli apply fills, one sample after another.
    PopulationTally tally(names, withValues ? data.markerNames() : std::vector<std::string>{}, 1);
    for (size_t si = 0; si < data.samples.size(); ++si) {
        const auto& sample = data.samples[si];
        Matrix values(sample.count, withValues ? data.points.cols : 0);
        if (withValues)
            std::copy_n(data.points.row(sample.first), sample.count * data.points.cols,
                        values.values.begin());
        std::vector<int32_t> codes(sample.count, -1);
        for (size_t i = 0; i < sample.count; ++i)
            if (sample.first + i < state.populations.membership.size())
                codes[i] = int32_t(state.populations.membership[sample.first + i]) - 1;
        tally.add(si, sampleName(sample.path), codes, values);
    }
    return tally;
}

std::vector<PopulationCount> Workspace::populationCounts() const {
    if (m_document.state().populations.groups.empty()) return {};
    return populationTally(false).counts();
}

std::vector<std::string> Workspace::exportPopulationCounts(const std::string& folder) const {
    const State& state = m_document.state();
    const auto& data = state.data;
    if (state.populations.groups.empty())
        throw InputError("no populations to count: make some (From landmarks, or the lasso)");
    const PopulationTally tally = populationTally(true);
    std::vector<std::string> inputs;
    for (const auto& sample : data.samples) inputs.push_back(sample.path);
    const std::string counts = (std::filesystem::path(folder) / "populations.csv").string();
    const std::string medians = (std::filesystem::path(folder) / "medians.csv").string();
    io::refuseOverwritingInput(counts, inputs, "populations.csv");
    io::refuseOverwritingInput(medians, inputs, "medians.csv");
    tally.writeCounts(counts);
    tally.writeMedians(medians);
    return {counts, medians};
}

void Workspace::exportHeatmap(const std::string& path) const {
    const State& state = m_document.state();
    if (state.populations.groups.empty())
        throw InputError("no populations for a heatmap: make some (From landmarks, or the lasso)");
    std::vector<std::string> inputs;
    for (const auto& sample : state.data.samples) inputs.push_back(sample.path);
    io::refuseOverwritingInput(path, inputs, "the heatmap");
    raster::writePng(path, renderHeatmap(populationHeatmap()));
}

}  // namespace sepal::app
