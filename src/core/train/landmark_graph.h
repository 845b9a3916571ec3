#pragma once
// The k-nearest-neighbour graph of the landmarks in data space (exact; g up to a few thousand).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/landmark_model.h"

namespace sepal {

/// Each landmark's k nearest other landmarks in data space: g x k indices (row-major, nearest
/// first, ties by index) and, when `sqdist` is given, their squared distances (g x k).
/// k is clamped to g - 1. OpenMP over landmarks; thread-count independent.
std::vector<uint32_t> landmarkNeighbours(const LandmarkModel& model, size_t k,
                                         std::vector<float>* sqdist = nullptr);

/// Replaces model.edges by the symmetrised k-NN graph (pairs i < j, sorted, no repeats) and
/// bumps lowVersion (the graph is drawn in 2D).
void buildLandmarkGraph(LandmarkModel& model, size_t k);

}  // namespace sepal
