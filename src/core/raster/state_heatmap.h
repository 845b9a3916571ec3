#pragma once
// The picture of a differential state test: populations x state markers coloured by the log fold
// change, a mark where the change is significant; in core, without a GUI.

#include <string>
#include <vector>

#include "core/raster/image.h"

namespace sepal::raster {

/// What the state heatmap shows: per population and state marker, a logFC and its adjusted p.
struct StateHeatmapInput {
    std::vector<std::string> populations;  ///< rows, top to bottom
    std::vector<std::string> markers;      ///< columns, left to right
    /// populations x markers, row-major: the test's logFC (NaN: not tested, drawn grey).
    std::vector<double> logFC;
    /// populations x markers, row-major: adjusted p-value (NaN: not tested); empty: no marks.
    std::vector<double> pAdjusted;
    double alpha = 0.05;  ///< cells with pAdjusted below this carry a dot
    /// The colour scale runs from -limit to +limit (0: the largest |logFC| rounded up to a
    /// round number).
    double limit = 0;
    std::string title;  ///< above the picture (empty: none)
};

/// Where the cells lie, for callers and tests.
struct StateHeatmapLayout {
    int width = 0, height = 0;          ///< the image's size
    int gridLeft = 0, gridTop = 0;      ///< the top-left corner of the first cell
    int cellWidth = 0, cellHeight = 0;  ///< a cell's size, gaps included
    double limit = 1;                   ///< the colour scale's end (logFC at full red)
};

/// The geometry renderStateHeatmap draws with (the same checks of the input).
StateHeatmapLayout stateHeatmapLayout(const StateHeatmapInput& in);

/// The state heatmap as a picture: cells coloured by logFC through the diverging coolwarm map,
/// symmetric around 0 (blue down, red up), grey where untested, a dot in cells with adjusted p
/// below alpha; marker names reading upwards above the columns, population names at the left,
/// a colour bar titled "logFC" and a key for the dot and the grey at the right. A dark
/// background like the app's canvas, or a white one (`light`). Throws InputError when sizes
/// disagree or there is no row or column.
Image renderStateHeatmap(const StateHeatmapInput& in, bool light = false);

}  // namespace sepal::raster
