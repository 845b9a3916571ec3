#pragma once
// From files on disk to the matrix EmbedSOM sees: read every input, concatenate samples, choose
// columns and transforms from the command line's words.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/markers/marker_classes.h"
#include "core/transform/pipeline.h"

namespace sepal {

/// Inputs and how to turn them into points.
struct PrepareOptions {
    std::vector<std::string> columns;  ///< channel names or markers; empty: the preset's choice
    /// "default" (TransformPipeline::defaultFor for cytometry files, none for other tables),
    /// "none", "asinh:COFACTOR" (or "arcsinh:COFACTOR"), "logicle", or a pipeline JSON file.
    std::string transform = "default";
    std::string sampleColumn = "sample";  ///< label column naming the file of each event
    /// A spillover matrix file (io::readSpilloverFile) used instead of the files' own; empty:
    /// the files' own matrix when the preset compensates.
    std::string spilloverFile;
    /// Marker classes the user set (by channel or marker): which markers are type and state.
    MarkerClassOverrides markerClasses;
    /// Embed every marker of the preset; by default a cytometry file embeds its type markers
    /// only (when it has at least two), and its state markers are kept beside (statePoints).
    bool allMarkers = false;
    /// Samples whose channels carry other markers than the first's (checkSamplesPanel) are
    /// taken, not refused: the same antibodies named otherwise.
    bool acceptOtherMarkers = false;
};

/// The concatenated table, the pipeline and its output.
struct PreparedInput {
    io::Table table;             ///< every input's events, with a sample column when several
    TransformPipeline pipeline;  ///< how `points` was computed from `table`
    Matrix points;               ///< events x pipeline.columns(), transformed
    /// The state markers that are not embedded (chooseStatePipeline), for medians and the
    /// heatmap: colour and statistics, not the landmarks.
    TransformPipeline statePipeline;
    Matrix statePoints;  ///< events x statePipeline.columns(), transformed
};

/// Reads one input file (io::readTable: FCS, CSV/TSV, points JSON); a clear error when absent.
io::Table readInput(const std::string& path);

/// The pipeline for `table` per options (columns, transform); throws InputError naming the
/// unknown column or transform and listing what exists.
TransformPipeline choosePipeline(const io::Table& table, const PrepareOptions& options);

/// The state markers of `table` (markerClasses with `overrides`) that `embedded` leaves out, with
/// its compensation and its first column's transform: what medians and the heatmap add to the
/// embedded columns. Empty when there are none.
TransformPipeline chooseStatePipeline(const io::Table& table, const TransformPipeline& embedded,
                                      const MarkerClassOverrides& overrides = {});

/// The embedded columns followed by the state ones: `points` and `statePoints` side by side
/// (events x both widths); `points` itself when there are no state columns.
Matrix withStateColumns(const Matrix& points, const Matrix& statePoints);

/// Makes `pipeline` compensate with the matrix in `path` (see io::readSpilloverFile).
void useSpilloverFile(TransformPipeline& pipeline, const std::string& path);

/// The events of `tables` (one per sample) as sepal-cli reads several inputs: one table as it
/// is, several concatenated with a `sampleColumn` label column (concatenateSamples).
io::Table combineSamples(std::vector<io::Table> tables, const std::string& sampleColumn);

/// Fits `pipeline` on `table` (all samples together) and returns the transformed points: the
/// one step both sepal-cli and the app take, so that they see the same numbers.
Matrix fitAndApply(TransformPipeline& pipeline, const io::Table& table);

/// Reads all paths (several = samples), chooses the pipeline, fits it and applies it.
PreparedInput prepareInputs(const std::vector<std::string>& paths, const PrepareOptions& options);

}  // namespace sepal
