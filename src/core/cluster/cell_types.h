#pragma once
// Cell types by marker rules ("CD4 T: CD3+ CD4+ CD8-"): a built-in table of the common blood
// cell types, editable (a CSV of name,rule), giving a population its common name when its
// markers match.

#include <optional>
#include <string>
#include <vector>

namespace sepal {

/// What a rule asks of one marker.
enum class MarkerCall {
    Negative,   ///< "CD8-": below the marker's positive cut
    Positive,   ///< "CD4+": at or above it
    Bright,     ///< "CD16hi": above the bright cut (positive where the marker has none)
    NotBright,  ///< "CD16lo": below the bright cut (negative where the marker has none)
};

/// One condition of a rule.
struct MarkerCondition {
    std::string marker;  ///< as written; matched through the marker catalogue's synonyms
    MarkerCall call = MarkerCall::Positive;
};

/// A cell type and the markers that define it.
struct CellTypeRule {
    std::string name;                         ///< "CD4 T"
    std::vector<MarkerCondition> conditions;  ///< all must hold
    std::string text;                         ///< the rule as written ("CD3+ CD4+ CD8-")
};

/// Parses "CD3+ CD4+ CD8- CD16hi CD56lo". Throws InputError naming `where` for a word without
/// +, -, hi or lo.
std::vector<MarkerCondition> parseMarkerRule(const std::string& rule, const std::string& where);

/// The built-in table (docs/MARKERS.md lists it), most specific types after their parents.
const std::vector<CellTypeRule>& builtInCellTypes();

/// Reads a table of `name,rule` lines (a header `name,rule` allowed). Throws InputError naming
/// the file and line.
std::vector<CellTypeRule> readCellTypes(const std::string& path);

/// Writes `rules` as readCellTypes reads them (to start an edited table from the built-in one).
std::string cellTypesText(const std::vector<CellTypeRule>& rules);

}  // namespace sepal
