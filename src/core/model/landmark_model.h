#pragma once
// The landmark model: high-dimensional landmarks, their 2D positions, a graph and user flags.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sepal {

/// g landmarks in d dimensions with 2D positions; versions tell consumers what changed.
struct LandmarkModel {
    size_t dim = 0;                                    ///< d, dimensions of the data space
    std::vector<float> high;                           ///< g x d, row-major, transformed space
    std::vector<float> low;                            ///< g x 2, row-major, 2D positions
    std::vector<uint8_t> locked;                       ///< g lock bits: 1 = 2D, 2 = data space
    std::vector<std::pair<uint32_t, uint32_t>> edges;  ///< optional graph on landmarks (i < j)
    uint64_t highVersion = 0;                          ///< bumped whenever `high` (or g) changes
    uint64_t lowVersion = 0;                           ///< bumped whenever `low` (or g) changes

    /// Number of landmarks g.
    size_t count() const { return locked.size(); }
    /// Pointer to landmark i in data space (d values).
    const float* highRow(size_t i) const { return high.data() + i * dim; }
    /// Pointer to landmark i in data space (d values).
    float* highRow(size_t i) { return high.data() + i * dim; }
    /// Resizes to g landmarks of dimension d, all zero and unlocked; bumps both versions.
    void resize(size_t g, size_t d);
    /// Appends a landmark (d values, 2D position); returns its index; bumps both versions.
    size_t add(const float* highValues, float x, float y);
    /// Removes landmark i and the edges that touch it (renumbering the rest); bumps both versions.
    void remove(size_t i);
    /// Marks both spaces changed (after editing `high` and `low` directly).
    void touch() { ++highVersion, ++lowVersion; }
    /// Throws InputError when sizes disagree or values are not finite.
    void validate() const;
};

}  // namespace sepal
