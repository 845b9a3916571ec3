#pragma once
// The table an export writes, built once for sepal-cli and the application: the raw events (or
// the transformed values), the two EmbedSOM coordinates, the population and sample columns.

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/common/matrix.h"
#include "core/gate/gate_tree.h"
#include "core/io/table.h"

namespace sepal {

/// Name ($PnN, CSV header) of the first embedding coordinate in exports.
inline constexpr const char* kEmbedSom1 = "EmbedSOM1";
/// Name ($PnN, CSV header) of the second embedding coordinate in exports.
inline constexpr const char* kEmbedSom2 = "EmbedSOM2";
/// Marker ($PnS) of the first coordinate, distinct from the second's so FlowJo tells them apart.
inline constexpr const char* kEmbedSom1Marker = "EmbedSOM 1";
/// Marker ($PnS) of the second coordinate.
inline constexpr const char* kEmbedSom2Marker = "EmbedSOM 2";
/// Name of the first coordinate in tables written before the EmbedSOM1/EmbedSOM2 names.
inline constexpr const char* kLegacyEmbedX = "embed_x";
/// Name of the second coordinate in tables written before the EmbedSOM1/EmbedSOM2 names.
inline constexpr const char* kLegacyEmbedY = "embed_y";

/// Which values an exported CSV holds (FCS always holds the raw ones).
enum class ExportValues {
    Raw,          ///< as read from the files (compensation and transforms not applied)
    Transformed,  ///< what EmbedSOM saw, for the embedded channels; others stay raw
};

/// The file format of an export; CSV headers read "CD3 (Sm154Di)", FCS and AnnData keep $PnN
/// and $PnS.
enum class ExportFormat { Csv, Fcs, H5ad };

/// What an export holds.
struct ExportOptions {
    ExportValues values = ExportValues::Raw;  ///< CSV only: FCS is always raw
    bool allChannels = true;                  ///< false: only the embedded channels
    bool perPopulation = false;               ///< one file per population (and the unassigned)
};

/// Per-event population membership with the populations' names.
struct PopulationCodes {
    std::string column = "population";  ///< name of the exported column
    std::vector<std::string> names;     ///< population i's name
    std::vector<int32_t> codes;         ///< per event: index into names, -1 for none
};

/// The extent of the coordinates, for the FCS keywords that describe them ($PnR, $PnD).
struct CoordinateBounds {
    float low[2] = {INFINITY, INFINITY};     ///< smallest finite x and y
    float high[2] = {-INFINITY, -INFINITY};  ///< largest finite x and y
    float top[2] = {0, 0};                   ///< largest finite magnitude of x and y
    /// Widens the bounds to cover xy (events x 2).
    void add(const Matrix& xy);
};

/// What an export is made from; everything is borrowed, rows follow the tables in order.
struct ExportSource {
    std::span<const io::Table> tables;  ///< raw events: one table, or one per sample
    /// Sample names for the sample column when there are several tables (default: file names).
    std::vector<std::string> sampleNames;
    std::string sampleColumn = "sample";   ///< name of that column
    const Matrix* xy = nullptr;            ///< events x 2: the EmbedSOM coordinates
    std::vector<std::string> usedColumns;  ///< channels (names or markers) that were embedded
    const Matrix* transformed = nullptr;   ///< events x usedColumns, for transformed values
    const PopulationCodes* populations = nullptr;  ///< replaces a label column of its name
    /// AnnData only: a gate tree whose every population becomes a column of membership.
    const GateTree* gates = nullptr;
    /// The coordinates' bounds over every block of a streamed export (ExportStream); when
    /// null, those of xy.
    const CoordinateBounds* bounds = nullptr;
};

/// The table to write: the kept channels (all, or the embedded ones) with raw or transformed
/// values, EmbedSOM1 and EmbedSOM2 (their $PnS and a $PnD display range among the keywords),
/// then the population column, the source's other label columns and, for several tables, the
/// sample column. CSV and AnnData hold raw values as the files stored them (before $PnG), FCS
/// the values read (its writer stores them as they were). The source's keywords and spillover
/// (restricted to the kept channels) are kept; channels and keywords of an earlier export's
/// coordinates are replaced. CSV channels are named by their labels ("CD3 (Sm154Di)",
/// channelLabels). Throws InputError when the pieces do not fit together.
io::Table buildExportTable(const ExportSource& source, const ExportOptions& options,
                           ExportFormat format);

/// For each channel of `exported` (buildExportTable's table of `source`, coordinates excluded):
/// the column of source.transformed holding its transformed values, or -1 when it was not
/// embedded.
std::vector<int> transformedColumns(const io::Table& exported, const ExportSource& source);

}  // namespace sepal
