#pragma once
// How far each landmark moved between two training steps, for the bounds that let a step keep a
// cell's nearest landmark without measuring it again (Hamerly's k-means bounds; the CUDA
// training step's step_bounds.cu): after landmark j moved by m_j, a cell's distance to j changed
// by at most m_j (the triangle inequality), so a cell whose distance to its own landmark, plus
// that landmark's move, stays below its distance to every other landmark less the largest other
// move keeps its landmark.

#include <cstddef>
#include <vector>

namespace sepal {

/// Each landmark's move and the two largest, as floats that are never below the real distance.
struct LandmarkMoves {
    std::vector<float> moves;  ///< g: |after_j - before_j|, rounded up
    float largest = 0;         ///< the largest move
    float second = 0;          ///< the largest move of a landmark other than `largestAt`
    size_t largestAt = 0;      ///< the landmark that moved the most (0 when g = 0)
};

/// The moves of g landmarks of d dimensions (row-major, both finite) from `before` to `after`:
/// distances summed in double and rounded up to the next float, so that a bound built on them
/// holds whatever the rounding.
LandmarkMoves landmarkMoves(const float* before, const float* after, size_t g, size_t d);

}  // namespace sepal
