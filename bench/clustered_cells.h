#pragma once
// The CUDA benchmarks' cells: n x d values around 16 centres, made on every core.

#include <cstddef>
#include <vector>

namespace sepal::bench {

/// n x d cells around 16 fixed centres, a roughly normal noise (the sum of four uniforms) per
/// value, each row from its own seed: the same cells on any number of cores, and 10^8 x 32 of
/// them in seconds.
std::vector<float> makeClusteredCells(size_t n, size_t d);

}  // namespace sepal::bench
