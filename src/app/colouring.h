#pragma once
// Per-cell colours from the colour settings: by marker, sample, label, density or population.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/dataset.h"
#include "app/gating.h"
#include "core/model/population_regions.h"
#include "core/pipeline/sample_metadata.h"

namespace sepal::app {

/// What the points are coloured by.
enum class ColourMode { Marker, Sample, Label, Density, Population, Group, Neighbours, Change };

/// Colouring choices; part of the undoable state.
struct ColourSettings {
    ColourMode mode = ColourMode::Sample;  ///< what decides a cell's colour
    int column = 0;                        ///< Marker: column of Dataset::points
    /// Marker: a state marker beside the embedded columns (ColourInputs::stateValues' column)
    /// instead of `column`; -1 for none.
    int stateColumn = -1;
    int labelColumn = 0;  ///< Label: label column of the first sample
    int groupColumn = 0;  ///< Group: the sample metadata's column
    /// Population: the one (by name) shown in its colour with the others greyed (empty, or a
    /// name no population has: all in colour); a click on a Heatmap row sets it.
    std::string highlight;
    std::string map = "viridis";                   ///< continuous colour map name
    float lowPercentile = 1, highPercentile = 99;  ///< Marker: clipping, percent
    bool operator==(const ColourSettings&) const = default;
};

/// A brushed group of cells.
struct Population {
    std::string name;                 ///< shown in the legend and exports
    std::array<uint8_t, 3> colour{};  ///< RGB
    std::string phenotype;  ///< the type markers that set it apart ("CD3+ CD4+"), or empty
    bool operator==(const Population&) const = default;
};

/// The populations and, per cell, the one it belongs to (0 = none, i + 1 = groups[i]).
struct Populations {
    std::vector<Population> groups;   ///< in creation order
    std::vector<uint8_t> membership;  ///< one per event
    /// How a model labels new files as these were made: landmark sets, then lasso strokes (empty
    /// for populations of unknown making, which travel as the landmarks' majorities).
    PopulationRegions regions;
    bool operator==(const Populations&) const = default;
};

/// One entry of a legend (categorical colouring).
struct LegendEntry {
    std::string name;                 ///< category
    std::array<uint8_t, 3> colour{};  ///< RGB
};

/// What the colour bar or the legend shows for the current colouring.
struct ColourKey {
    bool continuous = false;          ///< colour bar (true) or legend (false)
    std::string title;                ///< marker name or "sample", ...
    float low = 0, high = 1;          ///< colour bar range, data units
    std::string map;                  ///< colour bar map
    bool reversed = false;            ///< the map runs from its high end at `low` to its low end
    std::vector<LegendEntry> legend;  ///< legend entries
};

/// Names of the continuous colour maps offered.
const std::vector<std::string>& colourMapNames();
/// RGB of map at t in [0, 1].
std::array<uint8_t, 3> colourMap(const std::string& map, float t);
/// The i-th colour of the categorical palette.
std::array<uint8_t, 3> paletteColour(size_t i);

/// The picture's neighbourhoods cell by cell, on the cells the quality was scored on.
struct NeighbourScores {
    std::vector<size_t> cells;  ///< scored cells (indices of the data), ascending
    std::vector<float> kept;    ///< per scored cell: the share of its k neighbours kept in 2D
    size_t k = 10;              ///< neighbours compared
};

/// Each population's change between two conditions (differential abundance), for colouring.
struct PopulationChange {
    std::vector<std::string> populations;  ///< by name (a population since renamed: grey)
    std::vector<float> logFC;              ///< per name: log2 fold change (NaN: not tested)
    std::string title;                     ///< what was compared: "condition: stim - unstim"
};

/// What computeColours reads besides the data and the settings.
struct ColourInputs {
    const Populations& populations;     ///< Population
    const Gating& gating;               ///< every mode: cells outside are not drawn
    const SampleMetadata& metadata;     ///< Group
    const std::vector<float>& xy;       ///< Density: n x 2 positions
    const NeighbourScores& neighbours;  ///< Neighbours
    const PopulationChange& change;     ///< Change
    /// Marker: the state markers' values beside the embedded columns (events x columns) and
    /// their names; null where there are none.
    const Matrix* stateValues = nullptr;
    const std::vector<std::string>* stateMarkers = nullptr;
};

/// Computes n x 4 RGBA bytes for every cell (alpha 0 outside the gates). Returns the key.
ColourKey computeColours(const Dataset& data, const ColourSettings& settings,
                         const ColourInputs& in, std::vector<uint8_t>& rgba);

}  // namespace sepal::app
