#pragma once
// One epoch of the polish (polish.h): every cell's move along UMAP's gradient, attraction to its
// data-space neighbours and repulsion from a few random cells, from the same positions for every
// cell, so that the result does not depend on the thread count. With AVX2, eight cells at a time,
// a lane each, one neighbour after another: the pow of UMAP's curve as exp2(b log2 d2) with short
// series on eight lanes (relative error about 3e-6), the neighbours' positions loaded one pair at
// a time (gathers were slower). Elsewhere one cell at a time with the C library's pow.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// Each cell's data-space neighbours and their weights, place by place: place r of cell i is
/// at r * stride + i, so that eight cells' places are one vector.
struct PolishGraph {
    size_t n = 0;                ///< cells
    size_t k = 0;                ///< places per cell
    size_t stride = 0;           ///< n rounded up to a multiple of 8
    std::vector<uint32_t> nbr;   ///< k x stride; a missing neighbour (and padding) is the cell
    std::vector<float> weight;   ///< k x stride: UMAP's membership strengths, 0 where missing
    std::vector<float> weights;  ///< stride: the sum of each cell's weights
};

/// n rounded up to a multiple of 8: the places of a cell's neighbours are this far apart.
inline size_t polishStride(size_t n) {
    return (n + 7) / 8 * 8;
}

/// The neighbours as the epochs take them: UMAP's membership strengths of each cell's k
/// neighbours (nbr, sq: n x k as candidateNeighbours gives them, kNoNeighbour past the found
/// ones), in places padded to a multiple of 8.
PolishGraph polishGraph(const std::vector<uint32_t>& nbr, const std::vector<float>& sq, size_t n,
                        size_t k);

/// What one epoch needs besides the graph.
struct PolishStep {
    float a = 1, b = 1;          ///< UMAP's curve 1 / (1 + a d^2b)
    float rate = 0;              ///< this epoch's step
    float repulsion = 0;         ///< weight of the repulsion against UMAP's
    size_t negativeSamples = 0;  ///< random cells each cell is pushed from (at most 8)
    uint64_t seed = 0;           ///< with the cell and the epoch: the random cells
    size_t epoch = 0;            ///< this epoch's number
};

/// How an epoch runs: the fastest way the processor has, or one cell and term at a time (the
/// way of processors without AVX2; tests compare the two).
enum class PolishPath { Fastest, OneByOne };

/// Moves every usable cell from y to next (both stride x 2); unusable cells (usable: stride
/// flags, 0 past n) are copied. `keep`: the usable cells, among which the random ones are drawn.
void polishEpoch(const PolishGraph& graph, const std::vector<uint8_t>& usable,
                 const std::vector<uint32_t>& keep, const float* y, float* next,
                 const PolishStep& step, PolishPath path = PolishPath::Fastest);

}  // namespace sepal
