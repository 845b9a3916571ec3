#pragma once
// The populations x markers heatmap: each population's median expression per marker, scaled per
// marker between its 1st and 99th percentile over all cells (as CATALYST scales its heatmaps),
// with the cell counts; and its picture.

#include <cstdint>
#include <string>
#include <vector>

#include "core/color/colormap.h"
#include "core/common/matrix.h"
#include "core/raster/image.h"

namespace sepal {

/// A row per population, a column per marker.
struct Heatmap {
    std::vector<std::string> rows;     ///< population names
    std::vector<std::string> columns;  ///< marker names
    std::vector<float> medians;        ///< rows x columns: median value (NaN when no cells)
    std::vector<float> scaled;         ///< rows x columns: the median placed in [0, 1] between
                                       ///< the marker's 1st and 99th percentile of all cells
    std::vector<size_t> cells;         ///< per row: cells in the population
};

/// The heatmap of `values` (cells x columns, transformed) grouped by codes (-1: in no row; the
/// cells still count for the percentiles).
Heatmap heatmapOf(const Matrix& values, const std::vector<int32_t>& codes,
                  const std::vector<std::string>& rows, const std::vector<std::string>& columns);

/// The heatmap as a picture: names at the left, marker names above their columns, the cell
/// counts at the right, cells coloured by `map` (grey where a population has no cells), and a
/// colour bar of the scaled range. Dark background like the app's canvas.
raster::Image renderHeatmap(const Heatmap& heatmap, color::Colormap map = color::Colormap::Viridis);

}  // namespace sepal
