#pragma once
// Landmarks grouped into blocks of nearby ones: the principal-axis halving that the CPU's Lloyd
// assigner and the GPU's grouped nearest search both skip whole blocks by.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sepal {

/// The g landmarks (g x d, row-major) in an order whose consecutive runs of `block` are groups
/// of nearby landmarks: the set halved along its principal axis until a part fits a block, each
/// left part a whole number of blocks (only the last block may be short). Reproducible: the same
/// order for the same landmarks; NaN coordinates sort last.
std::vector<uint32_t> groupLandmarks(const float* landmarks, size_t g, size_t d, size_t block);

}  // namespace sepal
