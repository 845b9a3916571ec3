#pragma once
// Names for populations that never contradict their data: each type marker's positive cut is
// learnt from all cells (marker_thresholds.h), each population is called positive or negative
// on a marker only when most of its cells agree, its name is the cell type whose rule its calls
// satisfy (cell_types.h) or else the type markers that set it apart, and a population positive
// on two lineages no single cell carries is called doublets. Populations that one phrase would
// name alike are told apart by a call the phrase left out ("CD4+", "CD4-"), else by the marker
// whose medians part them most ("CD10+ CD38bright", "CD10+ CD38dim"), a marker the phrase calls
// positive last ("CCR5bright", "CCR5dim" for "CCR5+"); only those that nothing parts are
// numbered ("CD10+ (2)").

#include <cstdint>
#include <string>
#include <vector>

#include "core/cluster/cell_types.h"
#include "core/cluster/marker_thresholds.h"
#include "core/common/matrix.h"
#include "core/markers/marker_classes.h"

namespace sepal {

/// What namePopulations is given besides the cells.
struct NamingInput {
    std::vector<std::string> markers;  ///< per column of the points: its marker's name
    std::vector<MarkerClass> classes;  ///< per column: only type markers name populations
    const std::vector<CellTypeRule>* rules = nullptr;  ///< the cell types (built-in when null)
    /// Per column: true for a channel without a marker of its own ("APC-Cy7-A") beside channels
    /// with one, which never tells populations of one phrase apart (empty: every column has one,
    /// or none has).
    std::vector<bool> unnamed;
    /// Per column: the stain it measures as a key (markerKey of its own marker), which two
    /// channels of one stain share while their names differ ("CD3 (FL1-A)", "CD3 (FL2-A)");
    /// empty (or missing): the key of its name in `markers`.
    std::vector<std::string> stains;
    /// The cells each marker's cuts are learnt from, with the points' columns: every cell of the
    /// data when the points are a gate's (in a CD4 T gate CD4 is on every cell, and its cut
    /// learnt there would split CD4 T cells in two); null: the points named.
    const Matrix* cutsFrom = nullptr;
};

/// One population's name and how it was reached.
struct PopulationName {
    std::string name;  ///< shown and exported: the cell type, the marker phrase, or "population N"
    /// The type markers that set it apart ("CD3+ CD4+ CD45RA+ CCR7+"), then any that tell it from
    /// populations of the same phrase ("CD4-", or "CD38bright": brighter than they are; a call of
    /// its own may read "CCR7bright" instead of "CCR7+" for that).
    std::string phrase;
    /// The phrase's markers that set it apart (not those that tell namesakes apart): column and
    /// call (true: positive).
    std::vector<std::pair<size_t, bool>> called;
    std::string cellType;   ///< the cell type whose rule matched ("" when none did)
    bool doublets = false;  ///< positive on two lineages no single cell carries ("CD3+ CD19+")
};

/// A population's call on a marker: the share of its cells at or above the marker's cuts.
struct MarkerShare {
    double positive = 0;  ///< share at or above the positive cut
    double bright = 0;    ///< share at or above the bright cut (the positive share without one)
    /// Share at or above the dim floor of a marker whose lowest mode is dim (CD45 on
    /// neutrophils): the cells that carry it at all (the positive share on other markers).
    double carrying = 0;
};

/// The smallest share of a population's cells on one side of a cut for a call ("CD4+" needs
/// 60% of its cells positive): its median is then on that side too, so no name contradicts it.
inline constexpr double kCallShare = 0.6;

/// The input for points made of `columns` (channel names) of `table`: the columns' marker
/// names (markerNames) and classes (markerClasses with `overrides`).
NamingInput namingInputFor(const io::Table& table, const std::vector<std::string>& columns,
                           const MarkerClassOverrides& overrides = {},
                           const std::vector<CellTypeRule>* rules = nullptr);

/// Names k populations of the points (codes: each point's population, -1 for none). Equal names
/// that no marker tells apart get " (2)", " (3)"...
std::vector<PopulationName> namePopulations(const Matrix& points, const std::vector<int32_t>& codes,
                                            size_t k, const NamingInput& input);

/// The thresholds namePopulations learns, one per column (unresolved for columns that are not
/// markers), for the heatmap and the tests; a marker whose lowest mode lies above the median of
/// the markers' positive cuts is on every cell (onEveryCell).
std::vector<MarkerThreshold> learnThresholds(const Matrix& points,
                                             const std::vector<MarkerClass>& classes);

}  // namespace sepal
