#pragma once
// The t-SNE-like polish's attraction on one cell (tsne_polish.h): most of the polish's time.
// Summed in eight lanes, edge e of a row in lane e mod 8, then the lanes pairwise: the same
// bits on the AVX2 path and the portable one, on any thread count.

#include <cstddef>
#include <cstdint>

namespace sepal {

/// The attraction on cell c at (xi, yi): the sums over its affinities (column[e], value[e]) for
/// e in [first, last) of value (y_c - y_j) / (1 + |y_c - y_j|^2), into (ax, ay). pos: the cells'
/// positions as (x, y) pairs.
void tsneAttraction(const float* pos, const uint32_t* column, const float* value, size_t first,
                    size_t last, uint32_t c, float& ax, float& ay);

/// False forces the portable path (for tests: both paths give the same bits).
void useTsneAttractionAvx2(bool allowed);

}  // namespace sepal
