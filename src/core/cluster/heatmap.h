#pragma once
// The populations x markers heatmap: each population's median expression per marker, scaled per
// marker between its 1st and 99th percentile over all cells (as CATALYST scales its heatmaps),
// with the cell counts; and its picture.

#include <cstdint>
#include <string>
#include <vector>

#include "core/cluster/dendrogram.h"
#include "core/color/colormap.h"
#include "core/common/matrix.h"
#include "core/markers/marker_classes.h"
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
    /// Per column: its marker class, which puts it in the type or the state block (empty: one
    /// block).
    std::vector<MarkerClass> classes;
};

/// The heatmap of `values` (cells x columns, transformed) grouped by codes (-1: in no row; the
/// cells still count for the percentiles).
Heatmap heatmapOf(const Matrix& values, const std::vector<int32_t>& codes,
                  const std::vector<std::string>& rows, const std::vector<std::string>& columns);

/// The order a heatmap is drawn in: rows by average-linkage clustering on their type markers,
/// columns in blocks (type markers, then state markers, then the rest) each ordered by
/// clustering its columns.
struct HeatmapOrder {
    Dendrogram rowTree;                   ///< over the rows; its order is the rows' order
    std::vector<size_t> columns;          ///< the columns left to right
    std::vector<MarkerClass> block;       ///< per drawn column: its block
    std::vector<Dendrogram> columnTrees;  ///< per block, over its own columns
    std::vector<size_t> blockStart;       ///< per block: its first drawn column
};

/// The order of `heatmap`'s rows and columns.
HeatmapOrder heatmapOrder(const Heatmap& heatmap);

/// The heatmap as a picture sized to its content: rows and columns ordered by hierarchical
/// clustering (average linkage; rows on their type markers) with the dendrograms drawn, type
/// and state markers as two blocks, marker names reading upwards above their columns, population
/// names at the left, cells and percentages at the right, cells coloured by `map` (grey where a
/// population has no cells) and a colour bar; text from the real font (raster/text.h). A dark
/// background like the app's canvas, or a white one (`light`).
raster::Image renderHeatmap(const Heatmap& heatmap, color::Colormap map = color::Colormap::Viridis,
                            bool light = false);

}  // namespace sepal
