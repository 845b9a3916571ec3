#pragma once
// Populations drawn as 2D regions of the layout. The app's lasso paints the cells inside a polygon
// into a population, after the landmarks (metaclusters) gave each cell its first one; merges and
// deletions follow. A model carries that history as a rule, so that applying it to any file labels
// the cells as the app labelled them: each cell starts with the label of its nearest landmark in
// data space, the strokes repaint the cells whose layout position lies inside them, in the order
// they were drawn, and each label then names the population it ended in.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sepal {

/// One lasso stroke: the cells inside `polygon` (layout units) take `label`.
struct RegionStroke {
    int32_t label = 0;           ///< the label the cells take
    std::vector<int32_t> from;   ///< only cells holding one of these labels move (empty: any)
    std::vector<float> polygon;  ///< x y pairs, at least 3 vertices
    bool operator==(const RegionStroke&) const = default;
};

/// How cells are labelled with populations from their nearest landmark and layout position.
/// Labels are the populations as they were made; merges and deletions only change where a label
/// ends, so the strokes stay exact.
struct PopulationRegions {
    std::vector<int32_t> populationOfLabel;  ///< label -> population index (-1: none)
    std::vector<int32_t> labelOfLandmark;    ///< landmark -> label (-1: none)
    std::vector<RegionStroke> strokes;       ///< in the order drawn
    /// No rule: the populations are plain sets of landmarks.
    bool empty() const { return populationOfLabel.empty(); }
    bool operator==(const PopulationRegions&) const = default;
};

/// Regions that label each landmark's cells with its population (-1: none), with no strokes.
PopulationRegions regionsFromLandmarks(const std::vector<int32_t>& populationOfLandmark,
                                       size_t populations);

/// Each cell's population (-1: none) from its nearest landmark's label (labelOfCell, -1: none)
/// and its 2D position (xy, x y pairs; NaN lies in no stroke).
std::vector<int32_t> labelCells(const PopulationRegions& regions,
                                const std::vector<int32_t>& labelOfCell, const float* xy);

/// Each landmark's population (-1: none): where its label ends.
std::vector<int32_t> populationOfLandmarks(const PopulationRegions& regions);

/// The regions after population `removed` was deleted (its labels end in none; those of later
/// populations move down). A merge first points the merged labels at the population kept.
PopulationRegions withoutPopulation(PopulationRegions regions, int32_t removed);

/// Checks the rule against g landmarks and k populations; throws InputError naming `source`.
void validateRegions(const PopulationRegions& regions, size_t g, size_t k,
                     const std::string& source);
/// The rule as JSON ({labels, landmarks, strokes: [{label, from, polygon}]}).
nlohmann::json regionsToJson(const PopulationRegions& regions);
/// Reads a rule from JSON; throws InputError naming `source` and the field.
PopulationRegions regionsFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace sepal
