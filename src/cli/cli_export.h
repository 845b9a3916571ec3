#pragma once
// The export options embed and apply share, and how they write a table with its coordinates.

#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/pipeline/export_files.h"
#include "core/pipeline/export_stream.h"

namespace CLI {
class App;
}

namespace sepal::cli {

/// Adds --values raw|transformed, --channels all|used and --per-population to `cmd`.
void addExportOptions(CLI::App* cmd, ExportOptions& options);

/// What was embedded and where it landed, for one table of events.
struct EmbeddedTable {
    const io::Table* table = nullptr;     ///< raw events (labels included)
    const Matrix* xy = nullptr;           ///< events x 2 coordinates
    std::vector<std::string> columns;     ///< the pipeline's columns (channel names)
    const Matrix* points = nullptr;       ///< events x columns, transformed
    std::string sampleColumn = "sample";  ///< the label column naming each event's sample
    std::vector<std::string> inputs;      ///< files read, which no output may replace
    const GateTree* gates = nullptr;      ///< AnnData: each population's membership in obs
};

/// Writes the export of `embedded` to `path` (the population column: the table's first label
/// column other than the sample column) and returns the files written; notes on stderr say
/// when --values does not apply (FCS) and which files one per population made.
std::vector<std::string> writeEmbedded(const std::string& path, const EmbeddedTable& embedded,
                                       const ExportOptions& options, bool quiet);

/// Appends `embedded` (a block of one file's events) to a streamed export, with the population
/// column writeEmbedded would choose.
void appendEmbedded(ExportStream& stream, const EmbeddedTable& embedded);

}  // namespace sepal::cli
