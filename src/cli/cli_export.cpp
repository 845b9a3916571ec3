#include "cli/cli_export.h"

#include <CLI/CLI.hpp>
#include <map>
#include <optional>

#include "cli/cli_progress.h"

namespace sepal::cli {

void addExportOptions(CLI::App* cmd, ExportOptions& options) {
    const std::map<std::string, ExportValues> values = {{"raw", ExportValues::Raw},
                                                        {"transformed", ExportValues::Transformed}};
    cmd->add_option("--values", options.values,
                    "CSV values: raw (as read) or transformed (what EmbedSOM saw, for the "
                    "embedded channels); FCS always holds raw values")
        ->transform(CLI::CheckedTransformer(values, CLI::ignore_case))
        ->default_str("raw");
    const std::map<std::string, bool> channels = {{"all", true}, {"used", false}};
    cmd->add_option("--channels", options.allChannels,
                    "all: every channel of the input; used: only the embedded ones")
        ->transform(CLI::CheckedTransformer(channels, CLI::ignore_case))
        ->default_str("all");
    cmd->add_flag("--per-population", options.perPopulation,
                  "one file per population instead: OUT_<population>.fcs (or .csv), and "
                  "OUT_unassigned.fcs for events in none");
}

namespace {

/// The export source of `embedded`; `populations` holds its population column: the input's
/// first label column that does not name samples.
ExportSource sourceOf(const EmbeddedTable& embedded, std::optional<PopulationCodes>& populations) {
    const io::Table& table = *embedded.table;
    for (const io::LabelColumn& l : table.labels)
        if (!populations && l.name != embedded.sampleColumn)
            populations = PopulationCodes{l.name, l.categories, l.codes};
    ExportSource source;
    source.tables = std::span<const io::Table>(&table, 1);
    source.sampleColumn = embedded.sampleColumn;
    source.xy = embedded.xy;
    source.usedColumns = embedded.columns;
    source.transformed = embedded.points;
    source.populations = populations ? &*populations : nullptr;
    source.gates = embedded.gates;
    return source;
}

}  // namespace

void appendEmbedded(ExportStream& stream, const EmbeddedTable& embedded) {
    std::optional<PopulationCodes> populations;
    stream.append(sourceOf(embedded, populations));
}

std::vector<std::string> writeEmbedded(const std::string& path, const EmbeddedTable& embedded,
                                       const ExportOptions& options, bool quiet) {
    std::optional<PopulationCodes> populations;
    const ExportSource source = sourceOf(embedded, populations);
    if (options.values == ExportValues::Transformed && exportFormatOf(path) == ExportFormat::Fcs)
        note(quiet, path + ": FCS holds the raw values; --values transformed applies to CSV");
    const std::vector<std::string> written = writeExport(path, source, options, embedded.inputs);
    if (options.perPopulation)
        for (const std::string& file : written) note(quiet, "wrote " + file);
    return written;
}

}  // namespace sepal::cli
