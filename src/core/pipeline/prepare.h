#pragma once
// From files on disk to the matrix EmbedSOM sees: read every input, concatenate samples, choose
// columns and transforms from the command line's words.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/transform/pipeline.h"

namespace sepal {

/// Inputs and how to turn them into points.
struct PrepareOptions {
    std::vector<std::string> columns;  ///< channel names or markers; empty: the preset's choice
    /// "default" (TransformPipeline::defaultFor for cytometry files, none for other tables),
    /// "none", "asinh:COFACTOR" (or "arcsinh:COFACTOR"), "logicle", or a pipeline JSON file.
    std::string transform = "default";
    std::string sampleColumn = "sample";  ///< label column naming the file of each event
};

/// The concatenated table, the pipeline and its output.
struct PreparedInput {
    io::Table table;             ///< every input's events, with a sample column when several
    TransformPipeline pipeline;  ///< how `points` was computed from `table`
    Matrix points;               ///< events x pipeline.columns(), transformed
};

/// Reads one input file (io::readTable: FCS, CSV/TSV, points JSON); a clear error when absent.
io::Table readInput(const std::string& path);

/// The pipeline for `table` per options (columns, transform); throws InputError naming the
/// unknown column or transform and listing what exists.
TransformPipeline choosePipeline(const io::Table& table, const PrepareOptions& options);

/// Reads all paths (several = samples), chooses the pipeline, fits it and applies it.
PreparedInput prepareInputs(const std::vector<std::string>& paths, const PrepareOptions& options);

}  // namespace sepal
