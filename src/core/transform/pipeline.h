#pragma once
// The transform pipeline: plain data (saved as JSON) that turns a table into the matrix EmbedSOM
// sees. Order per event: compensation, then per column its transform, z-score and weight.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/io/table.h"
#include "core/transform/logicle.h"

namespace sepal {

/// The per-value transform of one column.
struct ColumnTransform {
    /// Which function is applied.
    enum class Kind { None, Linear, Arcsinh, Logicle };
    Kind kind = Kind::None;  ///< the function
    double cofactor = 5.0;   ///< arcsinh: y = asinh(x / cofactor)
    double scale = 1.0;      ///< linear: y = x * scale + offset
    double offset = 0.0;     ///< linear: added after scaling
    LogicleParams logicle;   ///< logicle: y = logicle(x), 0..1 over the nominal range
};

/// One output column: which channel, how it is transformed, standardised and weighted.
struct ColumnStep {
    std::string name;              ///< channel name (or marker) in the table
    ColumnTransform transform{};   ///< applied after compensation
    bool zscore = false;           ///< standardise to mean 0, sd 1 after the transform
    std::optional<double> mean{};  ///< z-score mean (transformed units); set by fit()
    std::optional<double> sd{};    ///< z-score standard deviation; set by fit()
    double weight = 1.0;           ///< multiplies the final value (importance in distances)
};

/// Compensation before everything else.
struct CompensationStep {
    /// Where the spillover matrix comes from.
    enum class Source { None, File, Stored };
    Source source = Source::None;  ///< File: the table's own matrix; Stored: `spillover`
    io::Spillover spillover;       ///< used when source is Stored
};

/// A transform pipeline: compensation plus the selected columns in output order.
class TransformPipeline {
  public:
    CompensationStep compensation;  ///< applied to the raw channels first
    std::vector<ColumnStep> steps;  ///< output columns, in order

    /// The pipeline as JSON (the format of docs/FORMATS.md); doubles round-trip exactly.
    nlohmann::json toJson() const;
    /// Reads a pipeline from JSON; throws InputError naming the offending field.
    static TransformPipeline fromJson(const nlohmann::json& json);
    /// Transformed values: events x steps.size(), row-major. Z-score columns without stored
    /// statistics use the statistics of this table (call fit() to store them). A pipeline that
    /// compensates takes a table's compensated columns ("Comp-PE-A", FlowJo's export) for the
    /// channels it lacks, uncompensated again. Throws InputError when a column or spillover
    /// channel is missing from `table`, or when it has compensated columns beside uncompensated
    /// ones that the matrix covers.
    Matrix apply(const io::Table& table) const;
    /// The selected column names, in output order.
    std::vector<std::string> columns() const;
    /// The steps' columns `table` lacks, in step order, found as apply finds them (a channel
    /// name, label or marker; a compensated "Comp-" column where the pipeline compensates).
    std::vector<std::string> missingColumns(const io::Table& table) const;
    /// Computes and stores the z-score statistics of every z-score column from `table`.
    void fit(const io::Table& table);
    /// Checks every parameter; throws InputError naming the field.
    void validate() const;
    /// A sensible preset for `table`: its marker channels (scatter, time, event length, barcode,
    /// DNA, population and embedding columns left out), arcsinh with cofactor 5 for mass
    /// cytometry or 150 for fluorescence, compensation with the file's spillover when present.
    static TransformPipeline defaultFor(const io::Table& table);

  private:
    /// Where each step's values come from in a table.
    struct ResolvedColumns {
        std::vector<size_t> source;            ///< the table's column of each found step
        std::vector<char> compensatedAlready;  ///< 1 where that column is a "Comp-" one
        std::vector<std::string> missing;      ///< the steps' names the table lacks
    };
    /// Finds each step's column in `table`; throws InputError when a name is ambiguous.
    ResolvedColumns resolveColumns(const io::Table& table) const;
    /// Throws when some steps take compensated columns (compensatedAlready) and others raw
    /// channels that the pipeline's matrix covers: the table mixes the two.
    void refuseHalfCompensated(const io::Table& table, const std::vector<size_t>& source,
                               const std::vector<char>& compensatedAlready) const;
};

}  // namespace sepal
