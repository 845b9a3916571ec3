#pragma once
// Comparing two k-NN graphs entry by entry (the same neighbours in the same order, distances
// equal or both NaN), as the tests of every graph builder do against the brute-force one.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/knn/knn_graph.h"

namespace sepal::test {

/// How many entries of `got` differ from `expected` (k a cell); the first three are reported as
/// failures naming `what`, the cell, its neighbour place and both graphs (`gotName`,
/// `expectedName`).
inline size_t graphDifferences(const KnnGraph& got, const KnnGraph& expected, size_t k,
                               const std::string& what, const char* gotName,
                               const char* expectedName) {
    size_t differ = 0;
    for (size_t i = 0; i < expected.neighbours.size(); ++i) {
        const bool same = got.neighbours[i] == expected.neighbours[i] &&
                          (got.distances[i] == expected.distances[i] ||
                           (std::isnan(got.distances[i]) && std::isnan(expected.distances[i])));
        if (!same && differ++ < 3)
            ADD_FAILURE() << what << ": cell " << i / k << " neighbour " << i % k << ": " << gotName
                          << " " << got.neighbours[i] << " at " << got.distances[i] << ", "
                          << expectedName << " " << expected.neighbours[i] << " at "
                          << expected.distances[i];
    }
    return differ;
}

}  // namespace sepal::test
