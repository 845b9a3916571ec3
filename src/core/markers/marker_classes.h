#pragma once
// Marker classes, as CATALYST and diffcyt split a panel: type (lineage) markers say what a cell
// is and make the landmarks, the layout, the populations and their names; state (function)
// markers say what it is doing and stay for colouring, the heatmap and the statistics; none for
// the channels that are not markers (time, DNA, barcodes...).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/io/table.h"

namespace sepal {

/// What a channel's marker tells about a cell.
enum class MarkerClass {
    Type,   ///< lineage: what the cell is (CD3, CD19, CD14...)
    State,  ///< function: what it is doing (phospho-proteins, cytokines, Ki67...)
    None,   ///< not a marker (time, DNA, viability, barcodes, beads...)
};

/// "type", "state" or "none".
const char* markerClassKey(MarkerClass c);

/// The class "type", "state" or "none" names (any case); nothing for other words.
std::optional<MarkerClass> markerClassNamed(const std::string& word);

/// A marker's name reduced for comparison: upper case, letters and digits only ("HLA-DR" and
/// "HLADR" both read "HLADR").
std::string markerKey(const std::string& marker);

/// The built-in catalogue's entry for a marker name (its synonyms, isotope tags such as
/// "141Pr_CD3" and a phospho "p" prefix understood): the canonical name and its class; nothing
/// for a marker the catalogue does not list. docs/MARKERS.md lists the catalogue.
struct CatalogueEntry {
    std::string name;  ///< the canonical name ("CD8", "HLA-DR", "pSTAT5")
    MarkerClass markerClass = MarkerClass::Type;
};
std::optional<CatalogueEntry> catalogueEntry(const std::string& marker);

/// The name a channel is known by in names and rules: its marker ($PnS) when it has one of its
/// own, else the channel name.
std::string markerOf(const io::Channel& channel);

/// Each column's default class: none for channels that are not markers (channelRole), the
/// catalogue's class for a marker it lists, type for any other marker (an antibody the
/// catalogue does not know is taken as lineage, as CATALYST does).
std::vector<MarkerClass> defaultMarkerClasses(const io::Table& table);

/// Classes a user set, by channel name ($PnN) or marker.
using MarkerClassOverrides = std::map<std::string, MarkerClass>;

/// Reads a CSV of `channel,class` lines (a header line `channel,class` allowed; class type,
/// state or none). Throws InputError naming the file and line.
MarkerClassOverrides readMarkerClasses(const std::string& path);

/// defaultMarkerClasses with `overrides` applied (matched by channel name, then marker, ignoring
/// case). Throws InputError naming `context` for an override that matches no channel.
std::vector<MarkerClass> markerClasses(const io::Table& table,
                                       const MarkerClassOverrides& overrides,
                                       const std::string& context = "--marker-classes");

/// The overrides that name a channel or marker of `table` (as markerClasses matches them): the
/// app keeps classes set on another file's channels (a session opened on other data) aside.
MarkerClassOverrides overridesOf(const io::Table& table, const MarkerClassOverrides& overrides);

/// The classes of `columns` (channel names or markers of `table`, as a transform pipeline lists
/// them) from markerClasses; none for a column the table lacks.
std::vector<MarkerClass> columnClasses(const io::Table& table,
                                       const std::vector<std::string>& columns,
                                       const MarkerClassOverrides& overrides = {});

}  // namespace sepal
