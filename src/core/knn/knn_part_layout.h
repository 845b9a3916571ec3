#pragma once
// The layout of a k-NN graph's parts (the GPU's candidates leave out whole parts): given each
// point's part, the points laid out as whole tiles of positions, and a ball (centre and radius)
// around the usable rows of each part and of each block of queries, in the rows' own space, widened
// so that the distance between two balls less their radii bounds the exact distance of any two of
// their points from below. Plain C++, on the CPU's cores; cuda/knn_parts.h finds the parts.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// A position of the layout that holds no point (padding to whole tiles).
constexpr uint32_t kNoPoint = 0xffffffffu;

/// The most parts a layout has (the candidate kernel keeps a bound for each in shared memory).
constexpr int kMaxKnnParts = 1024;

/// The queries of one candidate block: the layout's blocks of positions have this many.
constexpr int kKnnBlockQueries = 128;

/// Positions of a reference tile: every part starts on a whole tile.
constexpr int kKnnPartTile = 64;

/// Points gathered into parts of whole tiles, with a ball for each part and each block of
/// kKnnBlockQueries positions.
struct KnnPartLayout {
    std::vector<uint32_t> order;      ///< positions: the point at each (kNoPoint: padding)
    std::vector<int> partTiles;       ///< parts + 1: each part's first tile, then the end
    std::vector<uint32_t> partCells;  ///< parts: the points of each (its positions less padding)
    std::vector<float> partCentre;    ///< parts x stride, in the rows' space
    std::vector<float> partRadius;    ///< parts: the ball's radius (negative: no usable row)
    std::vector<float> blockCentre;   ///< blocks x stride
    std::vector<float> blockRadius;   ///< blocks (negative: no usable row)
    std::vector<int> blockPart;       ///< blocks: the part of the block's first position
    /// What every radius was widened by for the rows' rounding: at least 8 times the furthest a
    /// row lies from the exact values it stands for.
    double widen = 0;
    int parts() const { return int(partRadius.size()); }  ///< how many parts
    size_t positions() const { return order.size(); }     ///< points and padding
};

/// The rows a layout is made of, in the space its balls are measured in.
struct KnnLayoutRows {
    const float* rows = nullptr;   ///< n x stride values
    const float* norm2 = nullptr;  ///< n: |row|^2, infinity for a row that is never a neighbour
    size_t n = 0;                  ///< rows
    int stride = 0;                ///< columns of a row
    /// How far each value may lie from the exact one it stands for, as a share of the largest
    /// |row| (the rows' rounding: 2^-24 for values rounded once to float).
    double rounding = 0x1p-24;
};

/// The layout of `rows` for part[i] in 0 .. parts (parts: the unusable rows' own last part;
/// at most kMaxKnnParts in all): the parts one after another, each from a whole tile, its
/// points in index order.
KnnPartLayout layOutKnnParts(const KnnLayoutRows& rows, const std::vector<uint32_t>& part,
                             size_t parts);

}  // namespace sepal
