#pragma once
// Step 4 of embedsom.md in the O(1)-per-pair form: the sums of the 2x2 system over every pair of
// a point's neighbours, one implementation per instruction set.

#include <cstdint>

#include "core/embedsom/fast_point.h"
#include "core/embedsom/pair_constants.h"

namespace sepal {

/// Implementations of the pair loop; the projector runs the fastest this CPU has.
enum class PairKernel {
    Portable,  ///< one pair at a time
    Avx2,      ///< eight pairs (i, j..j+7) at a time
    Avx512,    ///< sixteen pairs of the flattened list at a time (topn <= 32; else Avx2)
};

/// True when this CPU runs `kernel`.
bool pairKernelAvailable(PairKernel kernel);

/// The fastest kernel this CPU runs.
PairKernel fastestPairKernel();

/// Adds the terms of every pair (i < j) of the topn neighbours (a: their squared distances, idx:
/// their landmarks; scratch: their scores, 2D positions and slots in the pair table, padded with
/// zero scores) to
/// acc = (a00, a01, a11, b0, b1), each term in the reference's order of operations and summed in
/// double. Returns true when a pair's O(1) form of D loses digits (a_j c_uv > kExactRatio): the
/// point is then solved the reference's way. `kernel` must be one this CPU runs.
bool pairSums(PairKernel kernel, const float* a, const uint32_t* idx, int topn,
              const PairConstants& pairs, const FastPointScratch& scratch, double* acc);

}  // namespace sepal
